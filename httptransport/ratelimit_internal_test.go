package httptransport

import (
	"testing"
	"time"
)

// TestRateLimiterBuckets: a principal's bucket admits its burst and then
// says how long until the next token; tools have buckets of their own; a
// refusal takes nothing; refilled buckets are swept.
func TestRateLimiterBuckets(t *testing.T) {
	t.Parallel()
	l := newRateLimiter(&RateLimit{PerSecond: 1, Burst: 2, Tools: map[string]Rate{"slow": {PerSecond: 0.5}}})
	now := time.Unix(1_000_000, 0)
	if why := l.admit("alice", 2, nil, now); why != nil {
		t.Fatal("alice's burst refused")
	}
	why := l.admit("alice", 1, nil, now)
	if why == nil || why.tool != "" || why.wait != time.Second || why.never {
		t.Fatalf("alice past her burst: %+v, want refused for 1s", why)
	}
	if why := l.admit("bob", 1, nil, now); why != nil {
		t.Fatal("bob refused for alice's rate")
	}
	later := now.Add(time.Second)
	if why := l.admit("alice", 1, []string{"slow"}, later); why != nil {
		t.Fatal("alice's first slow call refused")
	}
	// A second later her own bucket has a token again, slow's (one per
	// two seconds) not yet.
	later = later.Add(time.Second)
	why = l.admit("alice", 1, []string{"slow"}, later)
	if why == nil || why.tool != "slow" || why.wait != time.Second {
		t.Fatalf("second slow call within 2s: %+v, want refused by slow for 1s", why)
	}
	// The refusal gave the principal's token back.
	if why := l.admit("alice", 1, nil, later); why != nil {
		t.Fatal("a refused call kept its principal's token")
	}
	if why := l.admit("carol", 3, nil, now); why == nil || !why.never || why.n != 3 || why.burst != 2 {
		t.Fatalf("a batch larger than the burst: %+v, want refused as never fitting", why)
	}
	l.mu.Lock()
	l.sweep(later.Add(time.Hour))
	n := len(l.buckets)
	l.mu.Unlock()
	if n != 0 {
		t.Errorf("%d buckets left after all refilled, want 0", n)
	}
	if newRateLimiter(&RateLimit{}) != nil || newRateLimiter(nil) != nil {
		t.Error("an empty RateLimit makes a limiter")
	}
}
