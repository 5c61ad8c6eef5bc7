package httptransport_test

import (
	"encoding/json"
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
	t.Parallel()
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

// rateLimited posts body as a 2025-03-26 client of a stateless server
// with limit, and returns the 429's Retry-After and JSON-RPC error message.
func rateLimited(t *testing.T, limit *httptransport.RateLimit, body string) (retryAfter int, message string) {
	t.Helper()
	s := httptransport.NewTestServerWith(t, &httptransport.Options{Stateless: true, MaxBatchMessages: 200, RateLimit: limit}, nil)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", httptransport.Version20250326)
	resp, got := s.Do(http.MethodPost, h, body)
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429: %s", resp.StatusCode, got)
	}
	secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil {
		t.Fatalf("Retry-After %q: %v", resp.Header.Get("Retry-After"), err)
	}
	var m struct{ Error *jsonrpc.Error }
	if err := json.Unmarshal([]byte(got), &m); err != nil || m.Error == nil {
		t.Fatalf("not a JSON-RPC error: %q (%v)", got, err)
	}
	if m.Error.Code != jsonrpc.CodeServerError {
		t.Errorf("code %d, want %d", m.Error.Code, jsonrpc.CodeServerError)
	}
	return secs, m.Error.Message
}

// echoBatch is a 2025-03-26 batch of n echo calls.
func echoBatch(n int) string {
	calls := make([]string, n)
	for i := range calls {
		calls[i] = `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// TestRateLimitBatchThatNeverFits: issue 31 item 6. A batch of 100 against
// 5/s with a burst of 5 can never fit: the 429 says so, names the burst,
// and its Retry-After is the bucket's window (1 s), not a day. The same
// for a batch with more calls of one tool than that tool's burst.
func TestRateLimitBatchThatNeverFits(t *testing.T) {
	t.Parallel()
	secs, msg := rateLimited(t, &httptransport.RateLimit{PerSecond: 5, Burst: 5}, echoBatch(100))
	if secs != 1 {
		t.Errorf("Retry-After %d, want the window of 5 per second with a burst of 5: 1", secs)
	}
	if !strings.Contains(msg, "never fit") || !strings.Contains(msg, "100 requests") || !strings.Contains(msg, "burst of 5") {
		t.Errorf("message %q does not say the batch never fits the burst", msg)
	}
	secs, msg = rateLimited(t, &httptransport.RateLimit{Tools: map[string]httptransport.Rate{"echo": {PerSecond: 0.5, Burst: 3}}}, echoBatch(4))
	if secs != 6 {
		t.Errorf("tool: Retry-After %d, want its window of 3 at 0.5 per second: 6", secs)
	}
	if !strings.Contains(msg, "never fit") || !strings.Contains(msg, `4 calls of tool "echo"`) || !strings.Contains(msg, "burst of 3") {
		t.Errorf("tool: message %q does not say the batch never fits the tool's burst", msg)
	}
}

// TestRateLimitRetryAfterWithinWindow: Retry-After is never longer than
// the bucket's window (Burst / PerSecond). A request past the burst waits
// for one token; a batch past the burst is told the window.
func TestRateLimitRetryAfterWithinWindow(t *testing.T) {
	t.Parallel()
	const window = 200 // 2 at 0.01 per second
	limit := &httptransport.RateLimit{PerSecond: 0.01, Burst: 2}
	secs, _ := rateLimited(t, limit, echoBatch(3))
	if secs < 1 || secs > window {
		t.Errorf("batch past the burst: Retry-After %d, want within the window (%d s)", secs, window)
	}
	s := httptransport.NewTestServerWith(t, &httptransport.Options{Stateless: true, RateLimit: limit}, nil)
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", httptransport.Version20250326)
	for range 2 {
		if resp, body := s.Do(http.MethodPost, h, echoBatch(1)); resp.StatusCode != http.StatusOK {
			t.Fatalf("within the burst: %d %s", resp.StatusCode, body)
		}
	}
	resp, body := s.Do(http.MethodPost, h, echoBatch(2))
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("past the burst: %d %s", resp.StatusCode, body)
	}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || secs < 1 || secs > window {
		t.Errorf("past the burst: Retry-After %q, want within the window (%d s)", resp.Header.Get("Retry-After"), window)
	}
}
