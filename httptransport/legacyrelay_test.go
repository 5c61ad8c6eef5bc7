package httptransport_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
)

// TestLegacyPostsRelayed: a 2024-11-05 client's POSTs reach its event
// stream's instance through another one sharing the store and its relay:
// the call runs where the stream is, with the caller's identity, and its
// progress and answer arrive on the stream. A caller other than the
// session's owner gets 404 there, as here.
func TestLegacyPostsRelayed(t *testing.T) {
	t.Parallel()
	withUser := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u := r.Header.Get("X-Test-User"); u != "" {
				r = r.WithContext(identity.NewContext(r.Context(), &identity.Info{Issuer: "https://issuer.test", Subject: u}))
			}
			next.ServeHTTP(w, r)
		})
	}
	store := httptransport.NewMemorySessionStore()
	a := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{Sessions: store}, withUser, false)
	b := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{Sessions: store}, withUser, false)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, endpoint := httptransport.OpenLegacy(t, ctx, a.URL, http.Header{"X-Test-User": {"alice"}})
	h := http.Header{"Content-Type": {"application/json"}, "X-Test-User": {"alice"}}
	post := func(s *httptransport.TestServer, body string) int {
		resp, _ := s.DoURL("POST", s.HTTPServer.URL+endpoint, h, body)
		return resp.StatusCode
	}
	if code := post(b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{}}}`); code != http.StatusAccepted {
		t.Fatalf("initialize POSTed to b: %d", code)
	}
	if e := r.Next(); !strings.Contains(string(e.Data), `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize answer on a's stream: %s", e.Data)
	}
	post(a, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if code := post(b, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":1}}}`); code != http.StatusAccepted {
		t.Fatalf("call POSTed to b: %d", code)
	}
	for i, want := range []string{`"progress":1`, `"progress":2`, `"id":2`} {
		if e := r.Next(); e.Name != "message" || !strings.Contains(string(e.Data), want) {
			t.Errorf("event %d on a's stream: %q %s", i, e.Name, e.Data)
		}
	}
	if code := post(b, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`); code != http.StatusAccepted {
		t.Fatalf("echo POSTed to b: %d", code)
	}
	if e := r.Next(); !strings.Contains(string(e.Data), `"who":"alice"`) {
		t.Errorf("the relayed call ran without the caller's identity: %s", e.Data)
	}
	h.Set("X-Test-User", "mallory")
	if code := post(b, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`); code != http.StatusNotFound {
		t.Errorf("another principal POSTing to the session through b: %d, want 404", code)
	}
	cancel()
	h.Set("X-Test-User", "alice")
	for deadline := time.Now().Add(5 * time.Second); post(b, `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`) != http.StatusNotFound; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("b still takes POSTs for the session after its stream closed")
		}
	}
}

// TestLegacyRefusesLaterMethods: a 2024-11-05 session answers the methods
// of the 2026-07-28 era with -32601 on its stream, so that a client
// probing for that era (go-sdk's client sends server/discover first)
// initializes instead.
func TestLegacyRefusesLaterMethods(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, nil)
	h := http.Header{"Content-Type": {"application/json"}}
	for _, method := range []string{"server/discover", "subscriptions/listen"} {
		if resp, _ := s.DoURL("POST", s.HTTPServer.URL+endpoint, h, `{"jsonrpc":"2.0","id":"p","method":"`+method+`"}`); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("%s: %d", method, resp.StatusCode)
		}
		if e := r.Next(); !strings.Contains(string(e.Data), `"code":-32601`) {
			t.Errorf("%s on a 2024-11-05 session: %s, want -32601", method, e.Data)
		}
	}
}
