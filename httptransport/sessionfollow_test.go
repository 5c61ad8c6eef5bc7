package httptransport_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestSharedSessionStateFresh: state one instance saves (a call that
// changed it) is the state the next request on another instance, which
// already serves the session, is served with.
func TestSharedSessionStateFresh(t *testing.T) {
	t.Parallel()
	a, b := httptransport.Pair(t, httptransport.Options{})
	gate := make(chan struct{}, 1)
	a.Engine.Gate = gate
	sid := a.Initialize(httptransport.Version20251125)
	state := func(s *httptransport.TestServer) string {
		resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"state"}}`)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("state: %d %s", resp.StatusCode, body)
		}
		return body
	}
	if got := state(b); strings.Contains(got, "remembered") { // b serves the session now
		t.Fatalf("state before the change: %s", got)
	}
	gate <- struct{}{}
	if resp, body := a.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"text":"r"}}}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("remember: %d %s", resp.StatusCode, body)
	}
	<-a.Engine.Started
	if got := state(b); !strings.Contains(got, "remembered") {
		t.Errorf("another instance served the session with its old state: %s", got)
	}
}
