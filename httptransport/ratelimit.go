package httptransport

import (
	"fmt"
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
// Observer sees a refusal with reason "rate_limited". A POST with more
// requests than a bucket's burst (a 2025-03-26 batch) never fits: its
// error says so and names the burst, and its Retry-After is the bucket's
// window, the time it takes to refill from empty (Burst / PerSecond),
// which no Retry-After exceeds. The zero value bounds nothing.
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

// rateRefusal is why admit refused a POST's requests: the bucket that
// refused them, how long until they would fit, and whether they never can.
type rateRefusal struct {
	tool   string        // the tool whose bucket refused; "" for the principal's
	wait   time.Duration // until they would fit; unset when never
	window float64       // the bucket's window: seconds to refill from empty
	never  bool          // more requests at once than the bucket's burst
	n      int           // when never: how many the POST asked of the bucket
	burst  int           // the bucket's burst
}

// window is how long, in seconds, the bucket takes to refill from empty:
// the longest any request that fits ever waits.
func (r Rate) window() float64 { return float64(r.burst()) / r.PerSecond }

// admit takes n tokens from owner's bucket and, from each tool's bucket,
// one per call of it, all or none. It returns nil when they fit, and
// otherwise why not.
func (l *rateLimiter) admit(owner string, n int, tools []string, now time.Time) *rateRefusal {
	l.mu.Lock()
	defer l.mu.Unlock()
	var taken []*rate.Reservation
	try := func(key rateKey, r Rate, k int) *rateRefusal {
		res := l.bucket(key, r, now).ReserveN(now, k)
		if !res.OK() { // k past the burst: no wait makes it fit
			return &rateRefusal{tool: key.tool, window: r.window(), never: true, n: k, burst: r.burst()}
		}
		if d := res.DelayFrom(now); d > 0 {
			res.CancelAt(now)
			return &rateRefusal{tool: key.tool, wait: d, window: r.window(), burst: r.burst()}
		}
		taken = append(taken, res)
		return nil
	}
	refuse := func(why *rateRefusal) *rateRefusal {
		for _, res := range taken {
			res.CancelAt(now)
		}
		return why
	}
	if l.all.PerSecond > 0 && n > 0 {
		if why := try(rateKey{owner: owner}, l.all, n); why != nil {
			return refuse(why)
		}
	}
	for _, tc := range l.toolCounts(tools) {
		if why := try(rateKey{owner: owner, tool: tc.name}, l.tools[tc.name], tc.calls); why != nil {
			return refuse(why)
		}
	}
	return nil
}

// toolCount is how many calls of one bounded tool a POST makes.
type toolCount struct {
	name  string
	calls int
}

// toolCounts counts the calls of each tool in tools that has a bound of
// its own, in the order the tools first appear: a batch's calls of one
// tool are taken from its bucket together, so that a batch with more of
// them than its burst is told it never fits.
func (l *rateLimiter) toolCounts(tools []string) []toolCount {
	var out []toolCount
next:
	for _, name := range tools {
		if _, bounded := l.tools[name]; !bounded {
			continue
		}
		for i := range out {
			if out[i].name == name {
				out[i].calls++
				continue next
			}
		}
		out = append(out, toolCount{name: name, calls: 1})
	}
	return out
}

// retryAfter is the Retry-After, in whole seconds, for a refusal: the wait
// until the requests fit, or, for requests that never fit, the bucket's
// window (by then it is full, and a POST within the burst fits). It is
// never longer than the window, and at least a second.
func (why *rateRefusal) retryAfter() int64 {
	secs := why.window
	if !why.never {
		secs = min(why.wait.Seconds(), secs)
	}
	return int64(max(1, min(math.Ceil(secs), math.MaxInt32)))
}

// rpcError is the JSON-RPC error for a refusal: requests that never fit
// are told why, and how many fit at once.
func (why *rateRefusal) rpcError() *jsonrpc.Error {
	switch {
	case !why.never:
		return errRateLimited
	case why.tool != "":
		return jsonrpc.Errorf(jsonrpc.CodeServerError, fmt.Sprintf(
			"rate limit exceeded: %d calls of tool %q in one POST can never fit its burst of %d; send at most %d at once",
			why.n, why.tool, why.burst, why.burst))
	}
	return jsonrpc.Errorf(jsonrpc.CodeServerError, fmt.Sprintf(
		"rate limit exceeded: %d requests in one POST can never fit the burst of %d; send at most %d at once",
		why.n, why.burst, why.burst))
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
	why := l.admit(identity.FromContext(r.Context()).Owner(), n, tools, time.Now())
	if why == nil {
		return true
	}
	id := noID
	if !req.batch {
		id = req.msgs[0].ID
	}
	w.Header().Set("Retry-After", strconv.FormatInt(why.retryAfter(), 10))
	if ow, isObserved := w.(*observedWriter); isObserved {
		ow.status, ow.reason, ow.name = http.StatusTooManyRequests, "rate_limited", why.tool
	}
	output.WriteJSON(w, http.StatusTooManyRequests, output.ErrorBody(id, why.rpcError()))
	return false
}

// singleRequest wraps a 2024-11-05 POST's one message for admitRate.
func singleRequest(m *jsonrpc.Message) *request {
	req := &request{}
	req.one[0] = m
	req.msgs, req.errs = req.one[:], req.oneErr[:]
	return req
}
