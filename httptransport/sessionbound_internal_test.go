package httptransport

import (
	"net/http"
	"testing"
	"time"
)

// InitializeFrom opens a session with the given extra headers and returns
// the response's status and session id.
func (s *TestServer) InitializeFrom(header http.Header) (int, string, *http.Response) {
	s.T.Helper()
	h := SessionHeaders("", Version20251125)
	for k, v := range header {
		h[k] = v
	}
	resp, _ := s.Do("POST", h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), resp
}

// Alive reports whether a session still answers a request.
func (s *TestServer) Alive(sid string) bool {
	s.T.Helper()
	resp, _ := s.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	switch resp.StatusCode {
	case http.StatusOK:
		return true
	case http.StatusNotFound:
		return false
	}
	s.T.Fatalf("session %s: status %d", sid, resp.StatusCode)
	return false
}

func TestSessionBoundPerAddress(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t, &Options{MaxSessionsPerAddress: 2, TrustedProxies: []string{"127.0.0.0/8"}})
	from := func(addr string) http.Header { return http.Header{"X-Forwarded-For": {"203.0.113.9, " + addr}} }
	var a []string
	for range 2 {
		_, sid, _ := s.InitializeFrom(from("198.51.100.1"))
		a = append(a, sid)
	}
	_, b, _ := s.InitializeFrom(from("198.51.100.2"))
	_, b2, _ := s.InitializeFrom(from("198.51.100.2"))
	if !s.Alive(a[0]) || !s.Alive(a[1]) {
		t.Fatalf("another address's sessions ended the first address's")
	}
	s.Alive(a[0]) // a[1] is now the longest idle of its address
	_, a3, _ := s.InitializeFrom(from("198.51.100.1"))
	if a3 == "" || !s.Alive(a[0]) || s.Alive(a[1]) || !s.Alive(a3) {
		t.Errorf("a third session from one address should end that address's longest idle one, and only it")
	}
	if !s.Alive(b) || !s.Alive(b2) {
		t.Errorf("the other address's sessions ended")
	}
	if got := s.Handler.bound.count(); got != 4 {
		t.Errorf("sessions counted: %d, want 4", got)
	}
}

func TestFailedStoreAnnouncesNoSession(t *testing.T) {
	t.Parallel()
	store := NewFaultStore()
	store.FailPut.Store(true)
	s := NewTestServer(t, &Options{Sessions: store})
	for _, accept := range []string{"application/json, text/event-stream", "text/event-stream"} {
		status, sid, resp := s.InitializeFrom(http.Header{"Accept": {accept}})
		if status != http.StatusServiceUnavailable || sid != "" || resp.Header.Get("Retry-After") == "" {
			t.Errorf("Accept %q, store down: %d, Mcp-Session-Id %q, Retry-After %q; want 503, none, set",
				accept, status, sid, resp.Header.Get("Retry-After"))
		}
	}
	// A store that hangs past the header flush delay: the stream must not
	// open with a session id that was never stored.
	store.FailPut.Store(false)
	store.HangPut.Store(true)
	s2 := NewTestServer(t, &Options{Sessions: store, HeaderFlushDelay: 20 * time.Millisecond})
	s2.Handler.cfg.storeTimeout = 300 * time.Millisecond
	status, sid, _ := s2.InitializeFrom(nil)
	if status != http.StatusServiceUnavailable || sid != "" {
		t.Errorf("store hanging past the header flush: %d, Mcp-Session-Id %q; want 503 and none", status, sid)
	}
	store.HangPut.Store(false)
	if store.Len() != 0 {
		t.Errorf("store holds %d records after failed handshakes", store.Len())
	}
	if n := s.Handler.bound.count() + s2.Handler.bound.count(); n != 0 {
		t.Errorf("%d places still taken after failed handshakes", n)
	}
}
