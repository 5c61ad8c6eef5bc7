package httptransport_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// A plain JSON-RPC client's POST: Content-Type, and an Accept that does not
// name text/event-stream (none at all, JSON only, or fetch's default).
var plainAccepts = []string{"", "application/json", "*/*"}

// plainHeaders are a plain client's POST headers, with Accept as given ("":
// none) and the session id if it sends one back.
func plainHeaders(accept, sid string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}}
	if accept != "" {
		h.Set("Accept", accept)
	}
	if sid != "" {
		h.Set("Mcp-Session-Id", sid)
	}
	return h
}

const (
	initializeBody  = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"plain","version":"1"}}}`
	initializedBody = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	progressBody    = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"count":3},"_meta":{"progressToken":"p"}}}`
)

// checkJSONAnswer fails unless resp is a 200 JSON answer (no stream) whose
// one message is the response to id.
func checkJSONAnswer(t *testing.T, what string, resp *http.Response, body, id string) *jsonrpc.Message {
	t.Helper()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("%s: %d %q, want 200 with JSON; body %s", what, resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	m, err := jsonrpc.Decode([]byte(body))
	if err != nil || m.ID.Raw() != id || !m.IsResponse() {
		t.Fatalf("%s: body %s (%v), want the response to %s", what, body, err, id)
	}
	return m
}

// TestPlainClientServedWithoutSession: a plain JSON-RPC client (a POST
// whose Accept does not name text/event-stream) that never sends back the
// Mcp-Session-Id initialize gave it is served: each request on its own,
// as a 2026-07-28 request is, with a JSON answer, and its notification
// with 204 and no body, which it reads without parsing JSON. A Streamable
// HTTP client (Accept names text/event-stream) without a session id still
// gets 400 (spec 2025-11-25 basic/transports#session-management).
func TestPlainClientServedWithoutSession(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	for _, accept := range plainAccepts {
		h := plainHeaders(accept, "")
		resp, body := s.Do("POST", h, initializeBody)
		checkJSONAnswer(t, "Accept "+accept+": initialize", resp, body, "0")
		if resp.Header.Get("Mcp-Session-Id") == "" {
			t.Errorf("Accept %q: initialize minted no session, for a client that sends it back", accept)
		}
		if resp, body := s.Do("POST", h, initializedBody); resp.StatusCode != http.StatusNoContent || body != "" {
			t.Errorf("Accept %q: notifications/initialized: %d %q, want 204 and no body", accept, resp.StatusCode, body)
		}
		resp, body = s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"plain"}}}`)
		if m := checkJSONAnswer(t, "Accept "+accept+": tools/call", resp, body, "1"); !strings.Contains(string(m.Result), `"text":"plain"`) {
			t.Errorf("Accept %q: tools/call answered %s", accept, body)
		}
	}
	resp, body := s.Do("POST", httptransport.SessionHeaders("", ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Mcp-Session-Id") {
		t.Errorf("a Streamable HTTP client without a session id: %d %s, want 400", resp.StatusCode, body)
	}
}

// TestPlainClientGetsJSON: a plain client's call is answered with one JSON
// response, never an SSE stream, even when the call sends notifications
// first (they have nowhere to go and are dropped), in a session or without
// one. A client that names text/event-stream gets the stream.
func TestPlainClientGetsJSON(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	for _, accept := range plainAccepts {
		resp, body := s.Do("POST", plainHeaders(accept, ""), initializeBody)
		checkJSONAnswer(t, "initialize", resp, body, "0")
		sid := resp.Header.Get("Mcp-Session-Id")
		for _, sent := range []string{sid, ""} {
			resp, body := s.Do("POST", plainHeaders(accept, sent), progressBody)
			if m := checkJSONAnswer(t, "Accept "+accept+", session "+sent+": progress", resp, body, "2"); m.Error != nil {
				t.Errorf("Accept %q, session %q: progress answered %s", accept, sent, body)
			}
		}
	}
	sid := s.Initialize(httptransport.Version20251125)
	if resp, _ := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), progressBody); resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("a Streamable HTTP client's progress call: %q, want its SSE stream", resp.Header.Get("Content-Type"))
	}
}

// TestPlainClientNoContent: what holds no request (a notification, a
// response) is answered 204 to a plain client, with a session or without,
// at 2025-era and 2026-07-28 rules alike; a Streamable HTTP client gets
// 202 (spec 2025-11-25 basic/transports#sending-messages-to-the-server).
func TestPlainClientNoContent(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	modern := httptransport.ModernHeaders("notifications/cancelled")
	modern.Del("Accept")
	for _, tc := range []struct {
		name   string
		header http.Header
		body   string
		want   int
	}{
		{"plain, no session, notification", plainHeaders("", ""), initializedBody, http.StatusNoContent},
		{"plain, no session, response", plainHeaders("", ""), `{"jsonrpc":"2.0","id":9,"result":{}}`, http.StatusNoContent},
		{"plain, session, notification", plainHeaders("application/json", sid), initializedBody, http.StatusNoContent},
		{"plain, 2026-07-28 notification", modern, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, http.StatusNoContent},
		{"Streamable HTTP, session, notification", httptransport.SessionHeaders(sid, httptransport.Version20251125), initializedBody, http.StatusAccepted},
		{"Streamable HTTP, 2026-07-28 notification", httptransport.ModernHeaders("notifications/cancelled"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, http.StatusAccepted},
	} {
		if resp, body := s.Do("POST", tc.header, tc.body); resp.StatusCode != tc.want || body != "" {
			t.Errorf("%s: %d %q, want %d and no body", tc.name, resp.StatusCode, body, tc.want)
		}
	}
}

// TestPlainClientCannotBeAsked: a call of a plain client that sent no
// session id cannot ask the client anything (there is no way back); the
// engine learns why from Call.Send, and the client from the answer.
func TestPlainClientCannotBeAsked(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	resp, body := s.Do("POST", plainHeaders("", ""), `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sample","arguments":{}}}`)
	m := checkJSONAnswer(t, "sample", resp, body, "4")
	if m.Error == nil || !strings.Contains(m.Error.Message, "needs a session") || !strings.Contains(m.Error.Message, "Mcp-Session-Id") {
		t.Errorf("a server-to-client request without a session: %s, want an error saying it needs a session", body)
	}
}

// TestPlainClientReachesNoSession: a request without a session id is
// served with no session at all, never another client's: the engine's
// call has no session state, though a session was opened from the same
// address just before. Only the session's id reaches the session; an
// unknown id gets 404.
func TestPlainClientReachesNoSession(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	const state = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"state","arguments":{}}}`
	resp, body := s.Do("POST", plainHeaders("", ""), state)
	if m := checkJSONAnswer(t, "state without a session id", resp, body, "5"); !strings.Contains(string(m.Result), `"text":""`) {
		t.Errorf("a request without a session id saw session state: %s", body)
	}
	resp, body = s.Do("POST", plainHeaders("", sid), state)
	if m := checkJSONAnswer(t, "state with the session id", resp, body, "5"); !strings.Contains(string(m.Result), "initialized") {
		t.Errorf("a request naming the session did not see its state: %s", body)
	}
	if resp, body := s.Do("POST", plainHeaders("", "NOT-A-SESSION"), state); resp.StatusCode != http.StatusNotFound {
		t.Errorf("an unknown session id: %d %s, want 404", resp.StatusCode, body)
	}
}
