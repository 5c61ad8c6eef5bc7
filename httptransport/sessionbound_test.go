package httptransport_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
)

func TestSessionBoundEndsLongestIdle(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxSessions: 3})
	var sids []string
	for range 3 {
		sids = append(sids, s.Initialize(httptransport.Version20251125))
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
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxSessions: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 2 {
		sid := s.Initialize(httptransport.Version20251125)
		defer s.Do("DELETE", httptransport.SessionHeaders(sid, httptransport.Version20251125), "") // ends its call
		// A call in flight keeps the session in use.
		resp := s.Open(ctx, "POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"`+strconv.Itoa(i)+`"}}}`)
		defer resp.Body.Close()
		<-s.Engine.Started
	}
	status, sid, resp := s.InitializeFrom(nil)
	if status != http.StatusServiceUnavailable || sid != "" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("initialize past the bound with no idle session: %d, session %q, Retry-After %q; want 503, none, set",
			status, sid, resp.Header.Get("Retry-After"))
	}
}

func TestSessionBoundIgnoresForwardedForFromUntrustedPeers(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxSessionsPerAddress: 2})
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
	t.Parallel()
	// Authenticated sessions count in the instance's pool and their
	// principal's quota, not their address's.
	withUser := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			info := &identity.Info{Issuer: "https://issuer.test", Subject: r.Header.Get("X-Test-User")}
			next.ServeHTTP(w, r.WithContext(identity.NewContext(r.Context(), info)))
		})
	}
	s := httptransport.NewTestServerWith(t, &httptransport.Options{MaxSessionsPerAddress: 1}, withUser)
	var sids []string
	for i := range 3 {
		status, sid, _ := s.InitializeFrom(http.Header{"X-Test-User": {"u" + strconv.Itoa(i)}})
		if status != http.StatusOK {
			t.Fatalf("initialize %d: %d", i, status)
		}
		sids = append(sids, sid)
	}
	for i, sid := range sids {
		h := httptransport.SessionHeaders(sid, httptransport.Version20251125)
		h.Set("X-Test-User", "u"+strconv.Itoa(i))
		if resp, _ := s.Do("POST", h, `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
			t.Errorf("authenticated session %d: %d; the address bound should not apply", i, resp.StatusCode)
		}
	}
}

func TestSessionBoundFreesPlaceOnDelete(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxSessions: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sid := s.Initialize(httptransport.Version20251125)
	resp := s.Open(ctx, "POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"x"}}}`)
	defer resp.Body.Close()
	<-s.Engine.Started
	if status, _, _ := s.InitializeFrom(nil); status != http.StatusServiceUnavailable {
		t.Fatalf("initialize while the one session is busy: %d, want 503", status)
	}
	if resp, _ := s.Do("DELETE", httptransport.SessionHeaders(sid, httptransport.Version20251125), ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if status, _, _ := s.InitializeFrom(nil); status != http.StatusOK {
		t.Fatalf("initialize after DELETE: %d, want 200", status)
	}
}
