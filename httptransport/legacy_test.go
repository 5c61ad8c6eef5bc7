package httptransport_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestLegacySSE: the 2024-11-05 wire. The endpoint event comes first and
// names this URL with a session; POSTs to it get 202 and their answers
// arrive on the stream as "message" events, never in the POST body.
func TestLegacySSE(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, nil)
	if !strings.HasPrefix(endpoint, "/mcp?sessionId=") {
		t.Fatalf("endpoint %q", endpoint)
	}
	post := s.HTTPServer.URL + endpoint
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	resp, body := s.DoURL("POST", post, h, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{}}}`)
	if resp.StatusCode != 202 || strings.Contains(body, "protocolVersion") {
		t.Fatalf("initialize POST: %d %q", resp.StatusCode, body)
	}
	e := r.Next()
	if e.Name != "message" || !strings.Contains(string(e.Data), `"protocolVersion":"2024-11-05"`) {
		t.Fatalf("initialize result event %q %s", e.Name, e.Data)
	}
	if resp, _ := s.DoURL("POST", post, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != 202 {
		t.Errorf("initialized: %d", resp.StatusCode)
	}
	if resp, _ := s.DoURL("POST", post, h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":1}}}`); resp.StatusCode != 202 {
		t.Fatalf("call: %d", resp.StatusCode)
	}
	for i, want := range []string{`"progress":1`, `"progress":2`, `"id":2`} {
		if e := r.Next(); e.Name != "message" || !strings.Contains(string(e.Data), want) {
			t.Errorf("event %d: %q %s", i, e.Name, e.Data)
		}
	}
	// A second stream is a second session, with its own messages.
	r2, endpoint2 := httptransport.OpenLegacy(t, ctx, s.URL, nil)
	if endpoint2 == endpoint {
		t.Fatal("two streams share an endpoint")
	}
	s.DoURL("POST", s.HTTPServer.URL+endpoint2, h, `{"jsonrpc":"2.0","id":"only-2","method":"tools/list"}`)
	if e := r2.Next(); !strings.Contains(string(e.Data), `"only-2"`) {
		t.Errorf("second stream got %s", e.Data)
	}
	s.DoURL("POST", post, h, `{"jsonrpc":"2.0","id":"only-1","method":"tools/list"}`)
	if e := r.Next(); !strings.Contains(string(e.Data), `"only-1"`) {
		t.Errorf("first stream got %s", e.Data)
	}
	// Closing the stream ends the session.
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, _ := s.DoURL("POST", post, h, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		if resp.StatusCode == 404 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session alive after its stream closed: %d", resp.StatusCode)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLegacyBadPosts: malformed message POSTs get the documented status,
// and the stream stays usable.
func TestLegacyBadPosts(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxBodyBytes: 256})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, nil)
	post := s.HTTPServer.URL + endpoint
	u, _ := url.Parse(post)
	json := http.Header{"Content-Type": {"application/json"}}
	tests := []struct {
		name   string
		url    string
		header http.Header
		body   string
		status int
	}{
		{"bad JSON", post, json, `{"jsonrpc":`, 400},
		{"not a message", post, json, `{"jsonrpc":"2.0"}`, 400},
		{"wrong content type", post, http.Header{"Content-Type": {"text/plain"}}, `{}`, 415},
		{"oversized", post, json, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"` + strings.Repeat("a", 300) + `"}}`, 413},
		{"unknown session", s.URL + "?sessionId=NOSUCHSESSION", json, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 404},
		{"missing session", s.URL + "?sessionId=", json, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 400},
		{"foreign origin", post, http.Header{"Content-Type": {"application/json"}, "Origin": {"http://evil.example"}}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 403},
		{"batch", post, json, `[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`, 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := s.DoURL("POST", tt.url, tt.header, tt.body)
			if resp.StatusCode != tt.status {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
		})
	}
	s.DoURL("POST", u.String(), json, `{"jsonrpc":"2.0","id":"still","method":"tools/list"}`)
	if e := r.Next(); !strings.Contains(string(e.Data), `"still"`) {
		t.Errorf("stream after bad posts: %s", e.Data)
	}
}

// TestLegacyEndpointUnderPrefix: the endpoint URI is right under
// http.StripPrefix, and under a proxy that says X-Forwarded-Prefix.
func TestLegacyEndpointUnderPrefix(t *testing.T) {
	t.Parallel()
	h := httptransport.New(httptransport.NewTestEngine(), nil)
	mux := http.NewServeMux()
	mux.Handle("/api/v1/", http.StripPrefix("/api/v1", h))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer h.Shutdown(context.Background())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, endpoint := httptransport.OpenLegacy(t, ctx, srv.URL+"/api/v1/mcp", nil)
	if !strings.HasPrefix(endpoint, "/api/v1/mcp?sessionId=") {
		t.Errorf("under StripPrefix: %q", endpoint)
	}
	resp, err := http.Post(srv.URL+endpoint, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 202 {
		t.Errorf("POST to the endpoint under StripPrefix: %d", resp.StatusCode)
	}
	_, endpoint = httptransport.OpenLegacy(t, ctx, srv.URL+"/api/v1/mcp", http.Header{"X-Forwarded-Prefix": {"/public"}})
	if !strings.HasPrefix(endpoint, "/public/api/v1/mcp?sessionId=") {
		t.Errorf("behind a prefix-stripping proxy: %q", endpoint)
	}
	// A prefix that is not a path cannot send the client to another host.
	for _, prefix := range []string{"//evil.example", "/\\evil.example", "https://evil.example", "evil", "/\t/evil.example", "/ /evil.example"} {
		_, endpoint = httptransport.OpenLegacy(t, ctx, srv.URL+"/api/v1/mcp", http.Header{"X-Forwarded-Prefix": {prefix}})
		if !strings.HasPrefix(endpoint, "/api/v1/mcp?sessionId=") {
			t.Errorf("X-Forwarded-Prefix %q: endpoint %q", prefix, endpoint)
		}
	}
}

// TestLegacyEndpointOption: Options.LegacyEndpoint is named as given, and
// X-Forwarded-Prefix is then not applied.
func TestLegacyEndpointOption(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{LegacyEndpoint: "https://public.example/tenant/mcp"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, http.Header{"X-Forwarded-Prefix": {"/public"}})
	if !strings.HasPrefix(endpoint, "https://public.example/tenant/mcp?sessionId=") {
		t.Errorf("endpoint %q", endpoint)
	}
}

// TestLegacyEndpointFirst: the endpoint event is the stream's first event
// even while the engine is sending to every session (a list change).
func TestLegacyEndpointFirst(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
				s.Engine.Broadcast()
			}
		}
	}()
	defer func() { close(stop); <-done }()
	for range 100 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		httptransport.OpenLegacy(t, ctx, s.URL, nil) // fails unless the first event is endpoint
		cancel()
	}
}

// TestLegacySessionNotAStreamableSession: a 2024-11-05 session id is not
// accepted as an Mcp-Session-Id.
func TestLegacySessionNotAStreamableSession(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, nil)
	u, _ := url.Parse(endpoint)
	sid := u.Query().Get("sessionId")
	if resp, _ := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != 404 {
		t.Errorf("legacy id as Mcp-Session-Id: %d", resp.StatusCode)
	}
}
