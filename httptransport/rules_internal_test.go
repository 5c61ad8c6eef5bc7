package httptransport

import (
	"context"
	"encoding/json"
	"errors"
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
	t.Parallel()
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

// TestResumeRefusedWithoutResumability: with Options.DisableResumability
// a GET carrying Last-Event-ID gets 400, even when the id names one of
// the session's own streams: nothing was kept to replay, and a 200 would
// tell the client it missed nothing. Digest 1.6 ([SDK] unknown event id →
// 400).
func TestResumeRefusedWithoutResumability(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t, &Options{DisableResumability: true})
	sid := s.Initialize(Version20251125)
	s.Handler.mu.Lock()
	standalone := s.Handler.live[sid].standalone.ID()
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
	t.Parallel()
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
	t.Parallel()
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
