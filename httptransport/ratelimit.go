package httptransport

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// RateLimit bounds how fast each principal (the caller's identity, see
// package identity; unauthenticated callers count as one principal) may
// send JSON-RPC requests, as token buckets (golang.org/x/time/rate). Every
// request in a POST counts, of every era; notifications and answers to the
// server's requests do not, nor do GETs and DELETEs. A POST whose requests
// do not fit gets 429 with Retry-After (the seconds until they would fit)
// and a -32000 JSON-RPC error, before anything of it is served; the
// Observer sees a refusal with reason "rate_limited". The zero value
// bounds nothing.
type RateLimit struct {
	// PerSecond is the rate at which each principal's requests are
	// admitted over time. Zero means no bound on all requests (Tools may
	// still bound some).
	PerSecond float64
	// Burst is how many requests a principal may send at once after a
	// quiet spell. Zero means PerSecond rounded up, at least 1.
	Burst int
	// Tools bounds tools/call requests per tool name, per principal, on
	// top of PerSecond: a call must fit both. Nil means no per-tool bound.
	Tools map[string]Rate
}

// Rate is one token bucket: PerSecond sustained, Burst at once (zero
// means PerSecond rounded up, at least 1).
type Rate struct {
	PerSecond float64
	Burst     int
}

// errRateLimited refuses a POST over its principal's rate: 429.
var errRateLimited = jsonrpc.Errorf(jsonrpc.CodeServerError, "rate limit exceeded; retry later")

// rateLimiter keeps one token bucket per principal and per principal and
// tool. A bucket that has refilled is the same as a new one, so buckets
// full again are swept away as the map grows.
type rateLimiter struct {
	all   Rate
	tools map[string]Rate

	mu      sync.Mutex
	buckets map[rateKey]*rate.Limiter
	sweepAt int // sweep when buckets grows past this
}

type rateKey struct {
	owner, tool string // tool "" is the principal's bucket for all requests
}

func newRateLimiter(o *RateLimit) *rateLimiter {
	if o == nil || (o.PerSecond <= 0 && len(o.Tools) == 0) {
		return nil
	}
	l := &rateLimiter{all: Rate{PerSecond: o.PerSecond, Burst: o.Burst}, tools: make(map[string]Rate), buckets: make(map[rateKey]*rate.Limiter), sweepAt: 1024}
	for name, r := range o.Tools {
		if r.PerSecond > 0 {
			l.tools[name] = r
		}
	}
	return l
}

func (r Rate) burst() int {
	if r.Burst > 0 {
		return r.Burst
	}
	return max(1, int(math.Ceil(r.PerSecond)))
}

// bucket returns the bucket for key, made with r if new. Called with mu
// held.
func (l *rateLimiter) bucket(key rateKey, r Rate, now time.Time) *rate.Limiter {
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= l.sweepAt {
			l.sweep(now)
		}
		b = rate.NewLimiter(rate.Limit(r.PerSecond), r.burst())
		l.buckets[key] = b
	}
	return b
}

// sweep drops the buckets that have refilled. Called with mu held.
func (l *rateLimiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(b.Burst()) {
			delete(l.buckets, k)
		}
	}
	l.sweepAt = max(1024, 2*len(l.buckets))
}

// admit takes n tokens from owner's bucket and one per named call from
// each tool's bucket, all or none. It returns how long until they would
// fit, and the tool whose bucket refused ("" for the principal's), when
// they do not.
func (l *rateLimiter) admit(owner string, n int, tools []string, now time.Time) (wait time.Duration, tool string, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var taken []*rate.Reservation
	undo := func() {
		for _, r := range taken {
			r.CancelAt(now)
		}
	}
	try := func(b *rate.Limiter, k int, name string) bool {
		r := b.ReserveN(now, k)
		if !r.OK() {
			wait, tool = time.Duration(math.MaxInt64), name
			return false
		}
		if d := r.DelayFrom(now); d > 0 {
			r.CancelAt(now)
			wait, tool = d, name
			return false
		}
		taken = append(taken, r)
		return true
	}
	if l.all.PerSecond > 0 && n > 0 && !try(l.bucket(rateKey{owner: owner}, l.all, now), n, "") {
		undo()
		return wait, tool, false
	}
	for _, name := range tools {
		r, bounded := l.tools[name]
		if bounded && !try(l.bucket(rateKey{owner: owner, tool: name}, r, now), 1, name) {
			undo()
			return wait, tool, false
		}
	}
	return 0, "", true
}

// admitRate checks a POST's requests against its principal's rate
// (Options.RateLimit). It answers the POST itself and reports false when
// they do not fit.
func (h *Handler) admitRate(w http.ResponseWriter, r *http.Request, req *request) bool {
	l := h.cfg.rate
	n := 0
	var tools []string
	for i, m := range req.msgs {
		if req.errs[i] != nil || !m.IsRequest() {
			continue
		}
		n++
		if m.Method != "tools/call" || len(l.tools) == 0 {
			continue
		}
		p := req.params
		if req.batch || p == nil {
			p = decodeParams(m.Params)
		}
		if p != nil && p.Name != nil {
			if name, err := jsonString(p.Name); err == nil {
				tools = append(tools, name)
			}
		}
	}
	if n == 0 {
		return true
	}
	wait, tool, ok := l.admit(identity.FromContext(r.Context()).Owner(), n, tools, time.Now())
	if ok {
		return true
	}
	id := noID
	if !req.batch {
		id = req.msgs[0].ID
	}
	secs := int64(math.Ceil(wait.Seconds()))
	if wait > 24*time.Hour {
		secs = 86400 // a batch larger than the burst never fits: the longest wait worth saying
	}
	w.Header().Set("Retry-After", strconv.FormatInt(max(secs, 1), 10))
	if ow, isObserved := w.(*observedWriter); isObserved {
		ow.status, ow.reason, ow.name = http.StatusTooManyRequests, "rate_limited", tool
	}
	output.WriteJSON(w, http.StatusTooManyRequests, output.ErrorBody(id, errRateLimited))
	return false
}

// singleRequest wraps a 2024-11-05 POST's one message for admitRate.
func singleRequest(m *jsonrpc.Message) *request {
	req := &request{}
	req.one[0] = m
	req.msgs, req.errs = req.one[:], req.oneErr[:]
	return req
}
