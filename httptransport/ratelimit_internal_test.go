package httptransport

import (
	"testing"
	"time"
)

// TestRateLimiterBuckets: a principal's bucket admits its burst and then
// says how long until the next token; tools have buckets of their own; a
// refusal takes nothing; refilled buckets are swept.
func TestRateLimiterBuckets(t *testing.T) {
	l := newRateLimiter(&RateLimit{PerSecond: 1, Burst: 2, Tools: map[string]Rate{"slow": {PerSecond: 0.5}}})
	now := time.Unix(1_000_000, 0)
	if _, _, ok := l.admit("alice", 2, nil, now); !ok {
		t.Fatal("alice's burst refused")
	}
	wait, tool, ok := l.admit("alice", 1, nil, now)
	if ok || tool != "" || wait != time.Second {
		t.Fatalf("alice past her burst: ok %v tool %q wait %v, want refused for 1s", ok, tool, wait)
	}
	if _, _, ok := l.admit("bob", 1, nil, now); !ok {
		t.Fatal("bob refused for alice's rate")
	}
	later := now.Add(time.Second)
	if _, _, ok := l.admit("alice", 1, []string{"slow"}, later); !ok {
		t.Fatal("alice's first slow call refused")
	}
	// A second later her own bucket has a token again, slow's (one per
	// two seconds) not yet.
	later = later.Add(time.Second)
	wait, tool, ok = l.admit("alice", 1, []string{"slow"}, later)
	if ok || tool != "slow" || wait != time.Second {
		t.Fatalf("second slow call within 2s: ok %v tool %q wait %v, want refused by slow for 1s", ok, tool, wait)
	}
	// The refusal gave the principal's token back.
	if _, _, ok := l.admit("alice", 1, nil, later); !ok {
		t.Fatal("a refused call kept its principal's token")
	}
	if _, _, ok := l.admit("carol", 3, nil, now); ok {
		t.Fatal("a batch larger than the burst admitted")
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
