package httptransport_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

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
	s := httptransport.NewTestServerWith(t, &httptransport.Options{Stateless: true, RateLimit: &httptransport.RateLimit{PerSecond: 0.01, Burst: 2}}, users)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", httptransport.Version20250326)
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
	if _, code, _ := httptransport.RPCError(t, body); code != jsonrpc.CodeServerError {
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
