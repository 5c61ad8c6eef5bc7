package httptransport

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/identity"
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

func TestSessionBoundEndsLongestIdle(t *testing.T) {
	s := NewTestServer(t, &Options{MaxSessions: 3})
	var sids []string
	for range 3 {
		sids = append(sids, s.Initialize(Version20251125))
	}
	s.Alive(sids[0]) // the first is now the most recently used; the second the longest idle
	status, sid, _ := s.InitializeFrom(nil)
	if status != http.StatusOK || sid == "" {
		t.Fatalf("fourth initialize: %d, session %q; want 200 with a session", status, sid)
	}
	if s.Alive(sids[1]) {
		t.Errorf("the longest idle session still answers; it should have made room")
	}
	for _, id := range []string{sids[0], sids[2], sid} {
		if !s.Alive(id) {
			t.Errorf("session %s ended; only the longest idle one should", id)
		}
	}
}

func TestSessionBoundRefusesWhenNoneIdle(t *testing.T) {
	s := NewTestServer(t, &Options{MaxSessions: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 2 {
		sid := s.Initialize(Version20251125)
		defer s.Do("DELETE", SessionHeaders(sid, Version20251125), "") // ends its call
		// A call in flight keeps the session in use.
		resp := s.Open(ctx, "POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"`+strconv.Itoa(i)+`"}}}`)
		defer resp.Body.Close()
		<-s.Engine.Started
	}
	status, sid, resp := s.InitializeFrom(nil)
	if status != http.StatusServiceUnavailable || sid != "" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("initialize past the bound with no idle session: %d, session %q, Retry-After %q; want 503, none, set",
			status, sid, resp.Header.Get("Retry-After"))
	}
}

func TestSessionBoundPerAddress(t *testing.T) {
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

func TestSessionBoundIgnoresForwardedForFromUntrustedPeers(t *testing.T) {
	s := NewTestServer(t, &Options{MaxSessionsPerAddress: 2})
	var sids []string
	for i := range 3 {
		// Each claims another address; without TrustedProxies all count as
		// the peer's.
		_, sid, _ := s.InitializeFrom(http.Header{"X-Forwarded-For": {"198.51.100." + strconv.Itoa(i)}})
		sids = append(sids, sid)
	}
	if s.Alive(sids[0]) {
		t.Errorf("X-Forwarded-For from an untrusted peer was believed: the first session should have made room")
	}
}

func TestSessionBoundSkipsAuthenticatedCallers(t *testing.T) {
	// Authenticated sessions count in the instance's pool and their
	// principal's quota, not their address's.
	withUser := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info := &identity.Info{Issuer: "https://issuer.test", Subject: r.Header.Get("X-Test-User")}
			next.ServeHTTP(w, r.WithContext(identity.NewContext(r.Context(), info)))
		})
	}
	s := NewTestServerWith(t, &Options{MaxSessionsPerAddress: 1}, withUser)
	var sids []string
	for i := range 3 {
		status, sid, _ := s.InitializeFrom(http.Header{"X-Test-User": {"u" + strconv.Itoa(i)}})
		if status != http.StatusOK {
			t.Fatalf("initialize %d: %d", i, status)
		}
		sids = append(sids, sid)
	}
	for i, sid := range sids {
		h := SessionHeaders(sid, Version20251125)
		h.Set("X-Test-User", "u"+strconv.Itoa(i))
		if resp, _ := s.Do("POST", h, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
			t.Errorf("authenticated session %d: %d; the address bound should not apply", i, resp.StatusCode)
		}
	}
}

func TestSessionBoundFreesPlaceOnDelete(t *testing.T) {
	s := NewTestServer(t, &Options{MaxSessions: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sid := s.Initialize(Version20251125)
	resp := s.Open(ctx, "POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"x"}}}`)
	defer resp.Body.Close()
	<-s.Engine.Started
	if status, _, _ := s.InitializeFrom(nil); status != http.StatusServiceUnavailable {
		t.Fatalf("initialize while the one session is busy: %d, want 503", status)
	}
	if resp, _ := s.Do("DELETE", SessionHeaders(sid, Version20251125), ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if status, _, _ := s.InitializeFrom(nil); status != http.StatusOK {
		t.Fatalf("initialize after DELETE: %d, want 200", status)
	}
}

func TestFailedStoreAnnouncesNoSession(t *testing.T) {
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
