package httptransport

import (
	"context"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/identity"
)

// quota bounds how many places (calls in flight, or held streams) one
// principal holds at once (Options.MaxCallsPerPrincipal and
// MaxStreamsPerPrincipal). A nil quota has no bound and costs nothing.
// Principals are identity owners; unauthenticated callers share the
// empty owner, and so one quota.
type quota struct {
	max  int
	mu   sync.Mutex
	held map[string]int
}

func newQuota(max int) *quota {
	if max <= 0 {
		return nil
	}
	return &quota{max: max, held: make(map[string]int)}
}

// owner is the quota's key for the principal of ctx: its identity's
// owner, or "" when the quota has no bound (nothing to key, nothing to
// build).
func (q *quota) owner(ctx context.Context) string {
	if q == nil {
		return ""
	}
	return identity.FromContext(ctx).Owner()
}

// take reserves n places for owner; it reserves nothing and reports false
// when that would pass the bound.
func (q *quota) take(owner string, n int) bool {
	if q == nil || n == 0 {
		return true
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.held[owner]+n > q.max {
		return false
	}
	q.held[owner] += n
	return true
}

// give returns n places taken for owner.
func (q *quota) give(owner string, n int) {
	if q == nil || n == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.held[owner] -= n; q.held[owner] <= 0 {
		delete(q.held, owner)
	}
}

// place returns what gives back one place taken for owner, once however
// often it is called: a response holding a place gives it back when the
// client can first see it end (output.Stream.HoldPlace), and its handler again when
// it is over, whichever comes first. It is nil for a quota without bound.
func (q *quota) place(owner string) func() {
	if q == nil {
		return nil
	}
	var once sync.Once
	return func() { once.Do(func() { q.give(owner, 1) }) }
}

// admitCalls takes, before anything of a 2025-era POST is served, a place
// in the principal's quota for each of its requests (startCall gives each
// back when its call ends). It answers the POST itself and reports false
// when they do not fit: 429, or 400 for a batch that never could.
func (h *Handler) admitCalls(w http.ResponseWriter, r *http.Request, req *request) bool {
	n := 0
	for i, m := range req.msgs {
		if req.errs[i] == nil && m.IsRequest() {
			n++
		}
	}
	switch {
	case n > h.calls.max:
		writeRefusal(w, noID, errBatchOverQuota)
		return false
	case !h.calls.take(h.calls.owner(r.Context()), n):
		refuseOverQuota(w, errTooManyCalls)
		return false
	}
	return true
}

// refuseOverQuota answers a request refused by a quota: 429 with a
// Retry-After, since the places free up as calls end and streams close.
func refuseOverQuota(w http.ResponseWriter, herr *httpError) {
	w.Header().Set("Retry-After", "1")
	writeRefusal(w, noID, herr)
}

// expiredGrace is how long a held stream opened with a credential
// already expired (one the verifier accepted within its clock-skew
// leeway) stays open, so that the client does not reconnect in a loop
// with the same token until the verifier refuses it.
const expiredGrace = 5 * time.Second

// streamLimit is how long a held stream opened by r may stay open: until
// Options.MaxStreamDuration has passed or the credential that opened it
// expires (unless Options.StreamsOutliveTokens), whichever comes first.
// ok is false when neither bounds it. MaxStreamDuration is shortened by a
// random tenth at most, so that streams opened together (clients coming
// back after a deploy) do not all end, and reconnect, at once.
func (h *Handler) streamLimit(r *http.Request) (d time.Duration, ok bool) {
	if full := h.cfg.maxStreamDuration; full > 0 {
		d, ok = full-rand.N(full/10+1), true
	}
	if h.cfg.streamsOutliveTokens {
		return d, ok
	}
	if info := identity.FromContext(r.Context()); info != nil && !info.Expiry.IsZero() {
		left := time.Until(info.Expiry)
		if left <= 0 {
			left = expiredGrace
		}
		if !ok || left < d {
			d, ok = left, true
		}
	}
	return d, ok
}
