package httptransport

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Regression tests for rules the transport implements that no other test
// pins down. Each says what a client would notice if the rule broke.

// ProgressCall is a 2025-era tools/call whose answer is an SSE stream: two
// progress notifications, then the response (id 1).
const ProgressCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":"p"}}}`

// MetaWithToken is a valid 2026-07-28 _meta object carrying progress
// token tok (a JSON value).
func MetaWithToken(tok string) string {
	return `"_meta":{"progressToken":` + tok + `,` + strings.TrimPrefix(Meta, `"_meta":{`)
}

// TestNoDisconnectEventBefore20251125: when Options.MaxStreamDuration ends
// the GET stream of a 2025-03-26 or 2025-06-18 session, the stream simply
// ends. Those clients never see the server-side disconnect event (an id
// with empty data and a retry) that 2025-11-25 clients get
// (TestMaxStreamDuration): their SDKs crash on empty-data events. This
// holds whether or not the stream was taken over from net/http. Digest
// 1.7, "Gotcha".
func TestNoDisconnectEventBefore20251125(t *testing.T) {
	const limit = 300 * time.Millisecond
	for _, disableHijack := range []bool{false, true} {
		s := NewTestServer(t, &Options{MaxStreamDuration: limit, DisableHijack: disableHijack, RetryInterval: time.Second})
		for _, version := range []string{Version20250326, Version20250618} {
			sid := s.Initialize(version)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			resp := s.Open(ctx, "GET", GetHeaders(sid, version), "")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: GET %d", version, resp.StatusCode)
			}
			r := NewSSEReader(t, resp.Body)
			// An event with an id comes first, so the client has a
			// Last-Event-ID when the stream ends.
			s.Engine.Broadcast()
			if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
				t.Fatalf("%s: got %s", version, m.Method)
			}
			for {
				e, err := r.R.Next()
				if err != nil {
					if !errors.Is(err, io.EOF) || ctx.Err() != nil {
						t.Errorf("hijack off %v, %s: the stream did not end at its limit: %v %v", disableHijack, version, err, ctx.Err())
					}
					break
				}
				if !e.IsComment && len(e.Data) == 0 {
					t.Errorf("hijack off %v, %s: an empty-data event (id %q, retry %v) at the end of the stream", disableHijack, version, e.ID, e.Retry)
				}
			}
			cancel()
		}
	}
}

// downgradeEngine negotiates down: it answers every initialize with
// protocolVersion 2025-06-18, whatever the client asked for, and reports
// the Call.Version of each tools/call on seen.
type downgradeEngine struct {
	*TestEngine
	seen chan string
}

func (e downgradeEngine) Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	resp, err := e.TestEngine.Serve(ctx, call)
	switch call.Request.Method {
	case "initialize":
		var res map[string]any
		if err != nil || resp.Error != nil || json.Unmarshal(resp.Result, &res) != nil {
			return resp, err
		}
		res["protocolVersion"] = Version20250618
		return result(resp.ID, res), nil
	case "tools/call":
		e.seen <- call.Version
	}
	return resp, err
}

// TestSessionVersionFromInitializeResult: a session's version is the one
// the server answered in the initialize result, not the one the client
// asked for. A 2025-11-25 client that a server negotiates down to
// 2025-06-18 speaks 2025-06-18: its streams get no priming event (which
// 2025-06-18 clients crash on), the engine sees 2025-06-18 calls, and
// the stored record (read by other instances) says 2025-06-18. Digest
// 1.11 (the server may answer another version) and 1.7.
func TestSessionVersionFromInitializeResult(t *testing.T) {
	te := NewTestEngine()
	s := StartTestServer(t, te, nil, nil, false)
	de := downgradeEngine{TestEngine: te, seen: make(chan string, 4)}
	s.Handler.engine = de

	h := SessionHeaders("", "")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(body, `"protocolVersion":"2025-06-18"`) {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, sid, body)
	}
	if resp, _ := s.Do("POST", SessionHeaders(sid, Version20250618), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}

	_, body = s.Do("POST", SessionHeaders(sid, Version20250618), ProgressCall)
	evs := Events(t, body)
	for _, e := range evs {
		if !e.IsComment && len(e.Data) == 0 {
			t.Errorf("a session negotiated down to 2025-06-18 got a priming event (id %q); body %q", e.ID, body)
		}
	}
	if n := len(Messages(t, evs)); n != 3 {
		t.Errorf("%d messages, want 2 progress notifications and the response; body %q", n, body)
	}
	select {
	case v := <-de.seen:
		if v != Version20250618 {
			t.Errorf("the engine served the call under %s, want 2025-06-18", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the engine never saw the call")
	}
	if rec, err := s.Handler.sessions.Get(context.Background(), sid); err != nil || rec.Version != Version20250618 {
		t.Errorf("stored session: %v, version %q, want 2025-06-18", err, rec.Version)
	}
}

// TestNoIDsWithoutResumability: with Options.DisableResumability a
// 2025-11-25 client gets no priming event and no event ids, on a POST's
// stream or on the GET stream: an id would invite a Last-Event-ID resume
// that can only fail. Digest 1.7 ("the priming event is pointless without
// the ability to replay") and 1.6.
func TestNoIDsWithoutResumability(t *testing.T) {
	// DisableResumability wins over an EventStore passed with it.
	for _, store := range []EventStore{nil, NewMemoryEventStore(nil)} {
		s := NewTestServer(t, &Options{DisableResumability: true, Events: store, RetryInterval: time.Second})
		sid := s.Initialize(Version20251125)
		resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), ProgressCall)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("store %v: call: %d %v", store != nil, resp.StatusCode, resp.Header)
		}
		evs := Events(t, body)
		for _, e := range evs {
			if e.IsComment {
				continue
			}
			if e.HasID || len(e.Data) == 0 || e.Retry != 0 {
				t.Errorf("store %v: event id %q (%v) retry %v data %q: want data, and no id or retry", store != nil, e.ID, e.HasID, e.Retry, e.Data)
			}
		}
		if n := len(Messages(t, evs)); n != 3 {
			t.Errorf("store %v: %d messages, want 2 progress notifications and the response; body %q", store != nil, n, body)
		}

		r := s.OpenGET(t, sid)
		s.Engine.Broadcast()
		if e := r.Next(); e.HasID || len(e.Data) == 0 {
			t.Errorf("store %v: GET stream event id %q (%v) data %q: want data and no id", store != nil, e.ID, e.HasID, e.Data)
		}
	}
}

// TestResumeRefusedWithoutResumability: with Options.DisableResumability
// a GET carrying Last-Event-ID gets 400, even when the id names one of
// the session's own streams: nothing was kept to replay, and a 200 would
// tell the client it missed nothing. Digest 1.6 ([SDK] unknown event id →
// 400).
func TestResumeRefusedWithoutResumability(t *testing.T) {
	s := NewTestServer(t, &Options{DisableResumability: true})
	sid := s.Initialize(Version20251125)
	s.Handler.mu.Lock()
	standalone := s.Handler.live[sid].standalone.events.id
	s.Handler.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, id := range []string{standalone + "_1", "nosuch_1"} {
		h := GetHeaders(sid, Version20251125)
		h.Set("Last-Event-ID", id)
		// Not s.do: a stream wrongly opened would never end.
		resp := s.Open(ctx, "GET", h, "")
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("GET with Last-Event-ID %q: %d", id, resp.StatusCode)
		}
	}
	if resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after a refused resume: %d %s", resp.StatusCode, body)
	}
}

// TestVersionHeaderNotServedByEngine: a POST whose MCP-Protocol-Version is
// a 2025-era version the transport knows but the engine does not serve
// (Description.Versions without it) gets 400, inside a session too: the
// client learns the version is refused instead of being served under
// rules the engine does not follow. Digest 1.10 ("invalid or
// unsupported … MUST answer 400").
func TestVersionHeaderNotServedByEngine(t *testing.T) {
	te := NewTestEngine()
	s := StartTestServer(t, te, nil, nil, false)
	s.Handler.engine = versionsEngine{te, []string{Version20260728, Version20251125}}
	sid := s.Initialize(Version20251125)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, v := range []string{Version20250618, Version20250326} {
		h := SessionHeaders(sid, Version20251125)
		h.Set("Mcp-Protocol-Version", v)
		if resp, body := s.Do("POST", h, list); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("MCP-Protocol-Version %s, not served: %d %s", v, resp.StatusCode, body)
		}
	}
	if resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), list); resp.StatusCode != http.StatusOK {
		t.Errorf("MCP-Protocol-Version 2025-11-25, served: %d %s", resp.StatusCode, body)
	}
}

// TestGetDeleteNeedSessionID: on a server with sessions, a 2025-era GET
// or DELETE without Mcp-Session-Id gets 400: a client that lost its id
// learns it, instead of getting a 2024-11-05 event stream, a 405 (which
// says the server has no such stream) or a 200 that ended nothing. A GET
// with no session id and no 2025-era sign (no MCP-Protocol-Version, no
// Last-Event-ID) is the 2024-11-05 handshake, tested elsewhere. Digest
// 1.8 ("SHOULD answer 400 to a request … that has no session id").
func TestGetDeleteNeedSessionID(t *testing.T) {
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resume := GetHeaders("", "")
	resume.Set("Last-Event-ID", "x_1")
	for _, tc := range []struct {
		name   string
		method string
		header http.Header
	}{
		{"GET, 2025-11-25", "GET", GetHeaders("", Version20251125)},
		{"GET, 2025-06-18", "GET", GetHeaders("", Version20250618)},
		{"GET with Last-Event-ID", "GET", resume},
		{"DELETE, 2025-11-25", "DELETE", SessionHeaders("", Version20251125)},
		{"DELETE, no version", "DELETE", SessionHeaders("", "")},
	} {
		// Not s.do: a stream wrongly opened would never end.
		resp := s.Open(ctx, tc.method, tc.header, "")
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s without Mcp-Session-Id: %d %s", tc.name, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	if resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after the refused DELETEs: %d %s", resp.StatusCode, body)
	}
}

// TestReinitializeAndBadSessionHeader: initialize inside a session gets
// 400 with -32600 and mints no new session; an Mcp-Session-Id sent twice
// (same case or another), or holding anything but visible ASCII, gets 400
// on POST, GET and DELETE, not a 404 that would make the client drop its
// session, and a DELETE so refused leaves the session alone. Digest 1.8
// ("visible ASCII 0x21–0x7E"; [SDK] re-initialising → 400 -32600, header
// sent twice → 400).
func TestReinitializeAndBadSessionHeader(t *testing.T) {
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("initialize in a session: %d %s", resp.StatusCode, body)
	} else if id, code, _ := RPCError(t, body); id != "7" || code != jsonrpc.CodeInvalidRequest {
		t.Errorf("initialize in a session: id %s code %d, want 7 and -32600", id, code)
	}
	if got := resp.Header.Get("Mcp-Session-Id"); got != "" {
		t.Errorf("initialize in a session minted %q", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	twice := SessionHeaders(sid, Version20251125)
	twice["Mcp-Session-Id"] = []string{sid, sid}
	otherCase := SessionHeaders(sid, Version20251125)
	otherCase["MCP-Session-Id"] = []string{sid} // sent as written: the server folds the two
	space := SessionHeaders(sid[:8]+" "+sid[8:], Version20251125)
	nonASCII := SessionHeaders(sid+"\xc3\xa9", Version20251125)
	for _, tc := range []struct {
		name string
		h    http.Header
	}{{"sent twice", twice}, {"sent twice, other case", otherCase}, {"with a space", space}, {"non-ASCII", nonASCII}} {
		name, h := tc.name, tc.h
		for _, method := range []string{"POST", "GET", "DELETE"} {
			h := h.Clone()
			body := ""
			if method == "POST" {
				body = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
			}
			if method == "GET" {
				h.Set("Accept", "text/event-stream")
			}
			// Not s.do: a GET stream wrongly opened would never end.
			resp := s.Open(ctx, method, h, body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s, Mcp-Session-Id %s: %d", method, name, resp.StatusCode)
			}
		}
	}
	if resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after the refused requests: %d %s", resp.StatusCode, body)
	}
}

// askingEngine serves the tool "ask" as a tool ported from 2025 would:
// a progress notification, a sampling/createMessage request (whose Send
// error it reports on errs), another progress notification, then its
// result.
type askingEngine struct {
	*TestEngine
	errs chan error
}

func (e askingEngine) Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	var p toolParams
	if call.Request.Method != "tools/call" || json.Unmarshal(call.Request.Params, &p) != nil || p.Name != "ask" {
		return e.TestEngine.Serve(ctx, call)
	}
	progress := func(n int) error {
		params := `{"progressToken":` + string(p.Meta.ProgressToken) + `,"progress":` + strconv.Itoa(n) + `}`
		return call.Send(ctx, jsonrpc.NewNotification("notifications/progress", json.RawMessage(params)))
	}
	if err := progress(1); err != nil {
		return nil, err
	}
	e.errs <- call.Send(ctx, &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: jsonrpc.Int64ID(1), Method: "sampling/createMessage", Params: json.RawMessage(`{"messages":[],"maxTokens":1}`)})
	if err := progress(2); err != nil {
		return nil, err
	}
	return result(call.Request.ID, map[string]any{"resultType": "complete", "content": []any{}}), nil
}

// TestModernNoServerRequests: a 2026-07-28 call's Call.Send of a
// server-to-client request fails with ErrServerRequest, and the client's
// stream carries only the call's notifications and then its response:
// a 2026-07-28 client has no way to answer a request (MRTR replaces
// them), and the conformance suite fails any frame whose method is not a
// notification. Digest 2.1 (item 5) and 2.3.
func TestModernNoServerRequests(t *testing.T) {
	te := NewTestEngine()
	s := StartTestServer(t, te, nil, nil, false)
	ae := askingEngine{TestEngine: te, errs: make(chan error, 1)}
	s.Handler.engine = ae
	h := ModernHeaders("tools/call")
	h.Set("Mcp-Name", "ask")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"ask","arguments":{},`+MetaWithToken(`"a"`)+`}}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("call: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	select {
	case err := <-ae.errs:
		if !errors.Is(err, ErrServerRequest) {
			t.Errorf("Send of a request: %v, want ErrServerRequest", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the engine never tried the request")
	}
	msgs := Messages(t, Events(t, body))
	progress := 0
	for i, m := range msgs {
		switch {
		case m.IsNotification() && strings.HasPrefix(m.Method, "notifications/"):
			progress++
		case m.IsResponse() && i == len(msgs)-1:
			if m.ID.Raw() != `"c1"` || m.Error != nil {
				t.Errorf("response %s %s %v", m.ID, m.Result, m.Error)
			}
		default:
			t.Errorf("message %d on a 2026-07-28 stream: method %q id %s; body %q", i, m.Method, m.ID, body)
		}
	}
	if progress != 2 || len(msgs) == 0 || !msgs[len(msgs)-1].IsResponse() {
		t.Errorf("%d notifications, want 2, then the response; body %q", progress, body)
	}
}

// TestLegacyURLRefusesStreamableSession: a POST to the 2024-11-05 message
// URL (?sessionId=) naming a 2025-era session's Mcp-Session-Id gets 404,
// and the message reaches nobody: the two transports' sessions do not mix
// (a 2024-11-05 answer would go to a stream the session does not have),
// and the session itself goes on. The reverse is
// TestLegacySessionNotAStreamableSession. Digest 3 ("POST with unknown
// … session 404") and 1.8.
func TestLegacyURLRefusesStreamableSession(t *testing.T) {
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	h := http.Header{"Content-Type": {"application/json"}}
	for _, body := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`} {
		if resp, got := s.DoURL("POST", s.URL+"?sessionId="+sid, h, body); resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST %s to ?sessionId=<2025 session>: %d %s", body, resp.StatusCode, got)
		}
	}
	s.Engine.Mu.Lock()
	notified := append([]string(nil), s.Engine.Notified...)
	s.Engine.Mu.Unlock()
	for _, m := range notified {
		if m == "notifications/roots/list_changed" {
			t.Error("the engine received a notification POSTed to the 2024-11-05 URL")
		}
	}
	if resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("the session afterwards: %d %s", resp.StatusCode, body)
	}
}

// TestModernIgnoresLastEventID: a 2026-07-28 POST carrying Last-Event-ID
// is served as any other (2026-07-28 has no resumability: the header is
// ignored), and its stream carries no event ids to resume from. (A
// 2026-07-28 GET gets 405: TestModernGetDelete.) Digest 2.1 (item 4) and
// 2.10.
func TestModernIgnoresLastEventID(t *testing.T) {
	s := NewTestServer(t, nil)
	h := ModernHeaders("tools/call")
	h.Set("Mcp-Name", "progress")
	h.Set("Last-Event-ID", "x_1")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},`+MetaWithToken(`"m"`)+`}}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("call with Last-Event-ID: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	evs := Events(t, body)
	for _, e := range evs {
		if e.HasID {
			t.Errorf("a 2026-07-28 event with id %q: %q", e.ID, e.Data)
		}
	}
	msgs := Messages(t, evs)
	if len(msgs) != 3 || msgs[2].ID.Raw() != "3" || !msgs[2].IsResponse() {
		t.Errorf("want 2 progress notifications and the response; body %q", body)
	}
}
