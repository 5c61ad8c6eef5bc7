package otelmcp_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestRateLimitPerPrincipal: a principal past its burst gets 429 with
// Retry-After and a JSON-RPC error, another principal on the same
// instance is served, and the refusal is counted.
func TestRateLimitPerPrincipal(t *testing.T) {
	// One request per 100 seconds after a burst of 2: no token comes back
	// during the test, however slow the machine.
	f := newFixture(t, &httptransport.Options{RateLimit: &httptransport.RateLimit{PerSecond: 0.01, Burst: 2}})
	for i := range 2 {
		if resp, body := f.post2026(t, "alice", i+1, "echo"); resp.StatusCode != http.StatusOK || rpcErrorCode(t, body) != 0 {
			t.Fatalf("alice's call %d within her burst: %d %s", i+1, resp.StatusCode, body)
		}
	}
	resp, body := f.post2026(t, "alice", 3, "echo")
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("alice past her burst: %d %s, want 429", resp.StatusCode, body)
	}
	if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || secs < 1 || secs > 100 {
		t.Errorf("Retry-After %q, want the seconds until a token comes back (1..100)", resp.Header.Get("Retry-After"))
	}
	if code := rpcErrorCode(t, body); code != jsonrpc.CodeServerError {
		t.Errorf("JSON-RPC error %d, want %d", code, jsonrpc.CodeServerError)
	}
	if resp, body := f.post2026(t, "bob", 1, "echo"); resp.StatusCode != http.StatusOK || rpcErrorCode(t, body) != 0 {
		t.Errorf("bob, on the same instance: %d %s, want served", resp.StatusCode, body)
	}
	rm := f.metrics(t)
	if got := sumWhere(t, rm, "mcpmount.server.refusals", attribute.Int("http.response.status_code", 429), attribute.String("mcpmount.reason", "rate_limited")); got != 1 {
		t.Errorf("rate-limit refusals counted %d, want 1", got)
	}
	if got, _ := histCount(t, rm, "mcp.server.operation.duration", attribute.String("gen_ai.tool.name", "echo")); got != 3 {
		t.Errorf("calls served %d, want 3 (the refused one never reached the engine)", got)
	}
}

// TestRateLimitPerTool: a per-tool limit refuses that tool past its
// burst, names it in the refusal count, and leaves the principal's other
// tools alone.
func TestRateLimitPerTool(t *testing.T) {
	f := newFixture(t, &httptransport.Options{RateLimit: &httptransport.RateLimit{
		Tools: map[string]httptransport.Rate{"echo": {PerSecond: 0.01, Burst: 1}},
	}})
	if resp, body := f.post2026(t, "alice", 1, "echo"); resp.StatusCode != http.StatusOK {
		t.Fatalf("first echo: %d %s", resp.StatusCode, body)
	}
	resp, body := f.post2026(t, "alice", 2, "echo")
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second echo: %d (Retry-After %q) %s, want 429 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	for i := range 3 {
		if resp, body := f.post2026(t, "alice", 3+i, "fail"); resp.StatusCode != http.StatusOK {
			t.Fatalf("another tool: %d %s, want served", resp.StatusCode, body)
		}
	}
	if resp, _ := f.post2026(t, "bob", 1, "echo"); resp.StatusCode != http.StatusOK {
		t.Errorf("bob's echo: %d, want served (limits are per principal)", resp.StatusCode)
	}
	if got := sumWhere(t, f.metrics(t), "mcpmount.server.refusals", attribute.String("mcpmount.reason", "rate_limited"), attribute.String("gen_ai.tool.name", "echo")); got != 1 {
		t.Errorf("per-tool refusals counted %d, want 1", got)
	}
}

// TestRefusalsCounted: the transport's own refusals are counted by status
// and reason: an unknown session (404) and a wrong Content-Type (415).
func TestRefusalsCounted(t *testing.T) {
	f := newFixture(t, nil)
	req, _ := http.NewRequest(http.MethodPost, f.url, nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "NOSUCHSESSION")
	req.Header.Set("Mcp-Protocol-Version", httptransport.Version20251125)
	req.Body = http.NoBody
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`} {
		r := req.Clone(req.Context())
		r.Body = readCloser(body)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("unknown session: %d, want 404", resp.StatusCode)
		}
	}
	r := req.Clone(req.Context())
	r.Header.Set("Content-Type", "text/plain")
	r.Body = readCloser(`{}`)
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rm := f.metrics(t)
	if got := sumWhere(t, rm, "mcpmount.server.refusals", attribute.Int("http.response.status_code", 404), attribute.String("mcpmount.reason", "session_not_found")); got != 1 {
		t.Errorf("404 refusals %d, want 1", got)
	}
	if got := sumWhere(t, rm, "mcpmount.server.refusals", attribute.Int("http.response.status_code", resp.StatusCode), attribute.String("mcpmount.reason", "content_type")); got != 1 {
		t.Errorf("Content-Type refusals (%d) %d, want 1", resp.StatusCode, got)
	}
}

// TestRateLimitSessions: requests in 2025-era and 2024-11-05 sessions
// count too, and the client sees the refusal as an error. How many of the
// burst connecting takes (initialize, and any probe the client sends
// first) is the client's business: the test calls until refused.
func TestRateLimitSessions(t *testing.T) {
	for _, version := range []string{httptransport.Version20251125, httptransport.Version20241105} {
		t.Run(version, func(t *testing.T) {
			const burst = 5
			f := newFixture(t, &httptransport.Options{RateLimit: &httptransport.RateLimit{PerSecond: 0.01, Burst: burst}})
			cs := f.connect(t, version)
			served := 0
			for ; served < burst; served++ {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
				cancel()
				if err != nil {
					break
				}
			}
			if served == 0 || served == burst {
				t.Fatalf("%d calls served after connecting, want between 1 and %d (the burst less what connecting took)", served, burst-1)
			}
			rm := f.metrics(t)
			if got := sumWhere(t, rm, "mcpmount.server.refusals", attribute.Int("http.response.status_code", 429), attribute.String("mcpmount.reason", "rate_limited")); got != 1 {
				t.Errorf("rate-limit refusals counted %d, want 1", got)
			}
			if got, _ := histCount(t, rm, "mcp.server.operation.duration", attribute.String("gen_ai.tool.name", "echo")); got != uint64(served) {
				t.Errorf("echo calls that reached the engine %d, want the %d served", got, served)
			}
		})
	}
}
