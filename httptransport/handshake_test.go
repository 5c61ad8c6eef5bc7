package httptransport_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

const initBody = `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestRequestSentAsNotification: a request's method sent without an id is
// refused at once with 400 and -32600 without an id, in every era, and
// never reaches the engine (go-sdk's handshake would wait forever for the
// answer JSON-RPC forbids); notifications proper are still accepted.
func TestRequestSentAsNotification(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, nil)
	legacy := s.HTTPServer.URL + endpoint
	plain := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	tests := []struct {
		name   string
		url    string
		header http.Header
		body   string
	}{
		{"initialize", s.URL, plain, `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`},
		{"in a session", s.URL, httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","method":"tools/list"}`},
		{"2026-07-28", s.URL, httptransport.ModernHeaders("tools/list"), `{"jsonrpc":"2.0","method":"tools/list","params":{` + httptransport.Meta + `}}`},
		{"2024-11-05", legacy, plain, `{"jsonrpc":"2.0","method":"initialize","params":{}}`},
	}
	for _, tt := range tests {
		resp, body := s.DoURL("POST", tt.url, tt.header, tt.body)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: status %d, want 400: %s", tt.name, resp.StatusCode, body)
			continue
		}
		id, code, _ := httptransport.RPCError(t, body)
		if code != -32600 || (id != "" && id != "null") {
			t.Errorf("%s: id %q code %d, want no id and -32600: %s", tt.name, id, code, body)
		}
	}
	resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("notifications/initialized: %d %s, want 202", resp.StatusCode, body)
	}
	if n := len(s.Engine.Started); n != 0 {
		t.Errorf("the engine started %d calls", n)
	}
}

// TestRequestSentAsNotificationInBatch: in a 2025-03-26 batch such a
// member gets its own -32600 error with a null id; the rest are served.
func TestRequestSentAsNotificationInBatch(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20250326)
	h := httptransport.SessionHeaders(sid, httptransport.Version20250326)
	h.Set("Accept", "application/json")
	resp, body := s.Do("POST", h, `[{"jsonrpc":"2.0","method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var answers []struct {
		ID     json.RawMessage     `json:"id"`
		Result json.RawMessage     `json:"result"`
		Error  *struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &answers); err != nil || len(answers) != 2 {
		t.Fatalf("answers %s (%v), want two", body, err)
	}
	if a := answers[0]; string(a.ID) != "null" || a.Error == nil || a.Error.Code != -32600 {
		t.Errorf("first answer %s, want -32600 with a null id", body)
	}
	if a := answers[1]; string(a.ID) != "2" || a.Result == nil {
		t.Errorf("second answer %s, want tools/list's result", body)
	}
}

// startInit posts initialize in the background; its response (status and
// body) arrives on the returned channel.
func startInit(s *httptransport.TestServer, header http.Header) <-chan string {
	done := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.URL, strings.NewReader(initBody))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := s.Client.Do(req)
		if err != nil {
			done <- err.Error()
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- resp.Status + " sid=" + resp.Header.Get("Mcp-Session-Id") + " " + string(b)
	}()
	return done
}

// TestHandshakeDeadline: an engine that never answers initialize holds the
// new session's place only until Options.HandshakeTimeout; then the client
// gets a -32000 error and no session id, and the place is free again.
func TestHandshakeDeadline(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxSessionsPerAddress: 1, HandshakeTimeout: 50 * time.Millisecond})
	s.Engine.StallInits.Store(1)
	got := <-startInit(s, nil)
	if !strings.HasPrefix(got, "200") || !strings.Contains(got, "sid= ") || !strings.Contains(got, `"code":-32000`) || !strings.Contains(got, "in time") {
		t.Errorf("stalled handshake: %s, want a -32000 answer without a session id", got)
	}
	if sid := s.Initialize(httptransport.Version20251125); sid == "" {
		t.Error("no session after the stalled handshake ended")
	}
}

// TestPendingHandshakeEvicted: at the address's session bound with no idle
// session, a new initialize ends the handshake pending the longest, which
// gets a -32000 error, and takes its place.
func TestPendingHandshakeEvicted(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxSessionsPerAddress: 1, HandshakeTimeout: -1})
	s.Engine.StallInits.Store(1)
	first := startInit(s, nil)
	if got := <-s.Engine.Started; got != "initialize" {
		t.Fatalf("started %q", got)
	}
	sid := s.Initialize(httptransport.Version20251125)
	got := <-first
	if !strings.Contains(got, `"code":-32000`) || !strings.Contains(got, "make room") || !strings.Contains(got, "sid= ") {
		t.Errorf("evicted handshake: %s, want a -32000 answer without a session id", got)
	}
	if sid == "" {
		t.Error("the new client got no session")
	}
}

// TestShutdownEndsPendingHandshake: Shutdown past its deadline ends a
// handshake the engine never answers, whose client gets -32000 "server
// shutting down"; nothing is left running (goleak, in TestMain).
func TestShutdownEndsPendingHandshake(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{HandshakeTimeout: -1})
	s.Engine.StallInits.Store(1)
	first := startInit(s, nil)
	<-s.Engine.Started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Handler.Shutdown(ctx); err == nil {
		t.Error("Shutdown returned nil with a handshake still pending at its deadline")
	}
	if got := <-first; !strings.Contains(got, `"code":-32000`) || !strings.Contains(got, "shutting down") {
		t.Errorf("handshake at Shutdown: %s, want -32000 server shutting down", got)
	}
}
