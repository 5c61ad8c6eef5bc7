package httptransport

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/jsonrpc"
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

// TestRateLimitRefusesWholePost: a POST whose requests do not fit gets
// 429 with Retry-After and a JSON-RPC error, and none of it reaches the
// engine; another principal is served meanwhile.
func TestRateLimitRefusesWholePost(t *testing.T) {
	users := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r = r.WithContext(identity.NewContext(r.Context(), &identity.Info{Subject: r.Header.Get("X-User")}))
			next.ServeHTTP(w, r)
		})
	}
	s := NewTestServerWith(t, &Options{Stateless: true, RateLimit: &RateLimit{PerSecond: 0.01, Burst: 2}}, users)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", Version20250326)
	h.Set("X-User", "alice")
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}},` +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}},` +
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"c"}}}]`
	resp, body := s.Do(http.MethodPost, h, batch)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("batch of 3 past a burst of 2: %d %s", resp.StatusCode, body)
	}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || secs < 1 {
		t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
	}
	if _, code, _ := RPCError(t, body); code != jsonrpc.CodeServerError {
		t.Errorf("code %d, want %d", code, jsonrpc.CodeServerError)
	}
	one := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}}`
	for i := range 2 {
		if resp, body := s.Do(http.MethodPost, h, one); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"text":"a"`) {
			t.Fatalf("call %d within the burst (the refused batch took nothing): %d %s", i, resp.StatusCode, body)
		}
	}
	if resp, _ := s.Do(http.MethodPost, h, one); resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("third call: %d, want 429", resp.StatusCode)
	}
	h.Set("X-User", "bob")
	if resp, _ := s.Do(http.MethodPost, h, one); resp.StatusCode != http.StatusOK {
		t.Errorf("bob: %d, want served", resp.StatusCode)
	}
	// Notifications take no token.
	h.Set("X-User", "alice")
	if resp, _ := s.Do(http.MethodPost, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("alice's notification: %d, want 202", resp.StatusCode)
	}
}
