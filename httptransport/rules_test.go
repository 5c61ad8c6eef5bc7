package httptransport_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestNoDisconnectEventBefore20251125: when Options.MaxStreamDuration ends
// the GET stream of a 2025-03-26 or 2025-06-18 session, the stream simply
// ends. Those clients never see the server-side disconnect event (an id
// with empty data and a retry) that 2025-11-25 clients get
// (TestMaxStreamDuration): their SDKs crash on empty-data events. This
// holds whether or not the stream was taken over from net/http. Digest
// 1.7, "Gotcha".
func TestNoDisconnectEventBefore20251125(t *testing.T) {
	t.Parallel()
	const limit = 300 * time.Millisecond
	for _, disableHijack := range []bool{false, true} {
		s := httptransport.NewTestServer(t, &httptransport.Options{MaxStreamDuration: limit, DisableHijack: disableHijack, RetryInterval: time.Second})
		for _, version := range []string{httptransport.Version20250326, httptransport.Version20250618} {
			sid := s.Initialize(version)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			resp := s.Open(ctx, "GET", httptransport.GetHeaders(sid, version), "")
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("%s: GET %d", version, resp.StatusCode)
			}
			r := httptransport.NewSSEReader(t, resp.Body)
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

// TestNoIDsWithoutResumability: with Options.DisableResumability a
// 2025-11-25 client gets no priming event and no event ids, on a POST's
// stream or on the GET stream: an id would invite a Last-Event-ID resume
// that can only fail. Digest 1.7 ("the priming event is pointless without
// the ability to replay") and 1.6.
func TestNoIDsWithoutResumability(t *testing.T) {
	t.Parallel()
	// DisableResumability wins over an EventStore passed with it.
	for _, store := range []httptransport.EventStore{nil, httptransport.NewMemoryEventStore(nil)} {
		s := httptransport.NewTestServer(t, &httptransport.Options{DisableResumability: true, Events: store, RetryInterval: time.Second})
		sid := s.Initialize(httptransport.Version20251125)
		resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ProgressCall)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("store %v: call: %d %v", store != nil, resp.StatusCode, resp.Header)
		}
		evs := httptransport.Events(t, body)
		for _, e := range evs {
			if e.IsComment {
				continue
			}
			if e.HasID || len(e.Data) == 0 || e.Retry != 0 {
				t.Errorf("store %v: event id %q (%v) retry %v data %q: want data, and no id or retry", store != nil, e.ID, e.HasID, e.Retry, e.Data)
			}
		}
		if n := len(httptransport.Messages(t, evs)); n != 3 {
			t.Errorf("store %v: %d messages, want 2 progress notifications and the response; body %q", store != nil, n, body)
		}

		r := s.OpenGET(t, sid)
		s.Engine.Broadcast()
		if e := r.Next(); e.HasID || len(e.Data) == 0 {
			t.Errorf("store %v: GET stream event id %q (%v) data %q: want data and no id", store != nil, e.ID, e.HasID, e.Data)
		}
	}
}

// TestGetDeleteNeedSessionID: on a server with sessions, a 2025-era GET
// or DELETE without Mcp-Session-Id gets 400: a client that lost its id
// learns it, instead of a 405 (which says the server has no such stream)
// or a 200 that ended nothing. A GET that accepts text/event-stream with
// no session id and no Last-Event-ID is the 2024-11-05 handshake, whatever
// version it names (TestLegacyGetWhateverVersion), but with
// Options.RequireSessionID, where one naming a 2025-era version gets 400
// too. Digest 1.8 ("SHOULD answer 400 to a request … that has no session
// id").
func TestGetDeleteNeedSessionID(t *testing.T) {
	t.Parallel()
	resume := httptransport.GetHeaders("", "")
	resume.Set("Last-Event-ID", "x_1")
	jsonOnly := httptransport.GetHeaders("", httptransport.Version20251125)
	jsonOnly.Set("Accept", "application/json")
	for _, strict := range []bool{false, true} {
		s := httptransport.NewTestServer(t, &httptransport.Options{RequireSessionID: strict})
		sid := s.Initialize(httptransport.Version20251125)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, tc := range []struct {
			name       string
			method     string
			header     http.Header
			strictOnly bool
		}{
			{"GET, 2025-11-25", "GET", httptransport.GetHeaders("", httptransport.Version20251125), true},
			{"GET, 2025-06-18", "GET", httptransport.GetHeaders("", httptransport.Version20250618), true},
			{"GET, 2025-11-25, no text/event-stream", "GET", jsonOnly, false},
			{"GET with Last-Event-ID", "GET", resume, false},
			{"DELETE, 2025-11-25", "DELETE", httptransport.SessionHeaders("", httptransport.Version20251125), false},
			{"DELETE, no version", "DELETE", httptransport.SessionHeaders("", ""), false},
		} {
			if tc.strictOnly && !strict {
				continue
			}
			// Not s.do: a stream wrongly opened would never end.
			resp := s.Open(ctx, tc.method, tc.header, "")
			resp.Body.Close()
			if resp.StatusCode != http.StatusBadRequest {
				t.Errorf("RequireSessionID %v, %s without Mcp-Session-Id: %d %s", strict, tc.name, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
		if resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
			t.Errorf("RequireSessionID %v: the session after the refused DELETEs: %d %s", strict, resp.StatusCode, body)
		}
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
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("initialize in a session: %d %s", resp.StatusCode, body)
	} else if id, code, _ := httptransport.RPCError(t, body); id != "7" || code != jsonrpc.CodeInvalidRequest {
		t.Errorf("initialize in a session: id %s code %d, want 7 and -32600", id, code)
	}
	if got := resp.Header.Get("Mcp-Session-Id"); got != "" {
		t.Errorf("initialize in a session minted %q", got)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	twice := httptransport.SessionHeaders(sid, httptransport.Version20251125)
	twice["Mcp-Session-Id"] = []string{sid, sid}
	otherCase := httptransport.SessionHeaders(sid, httptransport.Version20251125)
	otherCase["MCP-Session-Id"] = []string{sid} // sent as written: the server folds the two
	space := httptransport.SessionHeaders(sid[:8]+" "+sid[8:], httptransport.Version20251125)
	nonASCII := httptransport.SessionHeaders(sid+"\xc3\xa9", httptransport.Version20251125)
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
	if resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after the refused requests: %d %s", resp.StatusCode, body)
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
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
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
	if resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != http.StatusOK {
		t.Errorf("the session afterwards: %d %s", resp.StatusCode, body)
	}
}

// TestModernIgnoresLastEventID: a 2026-07-28 POST carrying Last-Event-ID
// is served as any other (2026-07-28 has no resumability: the header is
// ignored), and its stream carries no event ids to resume from. (A
// 2026-07-28 GET gets 405: TestModernGetDelete.) Digest 2.1 (item 4) and
// 2.10.
func TestModernIgnoresLastEventID(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "progress")
	h.Set("Last-Event-ID", "x_1")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},`+httptransport.MetaWithToken(`"m"`)+`}}`)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("call with Last-Event-ID: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	evs := httptransport.Events(t, body)
	for _, e := range evs {
		if e.HasID {
			t.Errorf("a 2026-07-28 event with id %q: %q", e.ID, e.Data)
		}
	}
	msgs := httptransport.Messages(t, evs)
	if len(msgs) != 3 || msgs[2].ID.Raw() != "3" || !msgs[2].IsResponse() {
		t.Errorf("want 2 progress notifications and the response; body %q", body)
	}
}
