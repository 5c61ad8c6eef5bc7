package httptransport_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestRequireSessionID: with Options.RequireSessionID every client is
// served as a Streamable HTTP client that must keep its session, as before
// plain JSON-RPC clients were served: a request without Mcp-Session-Id
// gets 400 whatever its Accept says, a notification in a session 202, a
// call whose Accept is missing a stream when it sends notifications, and a
// GET without a session id naming a 2025-era version 400 (2026-07-28: 405).
// With Stateless it changes nothing: no session ids are minted to require.
func TestRequireSessionID(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{RequireSessionID: true})
	resp, body := s.Do("POST", plainHeaders("", ""), initializeBody)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	for _, accept := range plainAccepts {
		if resp, body := s.Do("POST", plainHeaders(accept, ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("Accept %q, no session id: %d %s, want 400", accept, resp.StatusCode, body)
		}
		if resp, body := s.Do("POST", plainHeaders(accept, ""), initializedBody); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("Accept %q, notification without a session id: %d %s, want 400", accept, resp.StatusCode, body)
		}
		if resp, body := s.Do("POST", plainHeaders(accept, sid), initializedBody); resp.StatusCode != http.StatusAccepted {
			t.Errorf("Accept %q, notification in the session: %d %s, want 202", accept, resp.StatusCode, body)
		}
	}
	if resp, _ := s.Do("POST", plainHeaders("", sid), progressBody); resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("no Accept, progress call: %q, want an SSE stream", resp.Header.Get("Content-Type"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for version, want := range map[string]int{
		httptransport.Version20251125: http.StatusBadRequest,
		httptransport.Version20260728: http.StatusMethodNotAllowed,
	} {
		// Not s.Do: a stream wrongly opened would never end.
		resp := s.Open(ctx, "GET", httptransport.GetHeaders("", version), "")
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET naming %s without a session id: %d, want %d", version, resp.StatusCode, want)
		}
	}

	stateless := httptransport.NewTestServer(t, &httptransport.Options{RequireSessionID: true, Stateless: true})
	if resp, body := stateless.Do("POST", httptransport.SessionHeaders("", ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("with Stateless, no session id: %d %s, want it served", resp.StatusCode, body)
	}
}
