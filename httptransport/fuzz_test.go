package httptransport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// quickEngine answers every request at once, so fuzzing never blocks.
type quickEngine struct{}

func (quickEngine) Describe(context.Context) *httptransport.Description {
	return &httptransport.Description{ToolHeaders: map[string][]httptransport.HeaderParam{"t": {{Header: "A", Path: []string{"a"}}, {Header: "B", Path: []string{"b", "c"}}}}}
}

func (quickEngine) Serve(_ context.Context, c *httptransport.Call) (*jsonrpc.Message, error) {
	_ = c.Send(context.Background(), jsonrpc.NewNotification("notifications/progress", json.RawMessage(`{"progressToken":1,"progress":1}`)))
	return jsonrpc.NewResponse(c.Request.ID, json.RawMessage(`{"protocolVersion":"2025-11-25"}`)), nil
}

func (quickEngine) Notify(context.Context, *httptransport.Session, *jsonrpc.Message) {}
func (quickEngine) OpenSession(context.Context, *httptransport.Session, httptransport.Sender) error {
	return nil
}

// FuzzServePost sends arbitrary bodies with arbitrary MCP headers through
// the handler: it never panics, answers with a status the transport
// documents, and every error body is a JSON-RPC error.
func FuzzServePost(f *testing.F) {
	seeds := []struct{ body, version, method, name, param, sid string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":"x"},` + httptransport.Meta + `}}`, "2026-07-28", "tools/call", "t", "x", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`, "", "", "", "", ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"}]`, "2025-03-26", "", "", "", "abc"},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, "2026-07-28", "x", "", "=?base64?eA==?=", ""},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, "2025-11-25", "", "", "", "s"},
		{`{`, "v999", "\x00", "\xff", "=?base64?!!?=", "\x7f"},
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"1.0","id":2},3,[]]`, "", "", "", "", "live"},
		{`[{"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]`, "2025-03-26", "", "", "", "live"},
	}
	for _, s := range seeds {
		f.Add(s.body, s.version, s.method, s.name, s.param, s.sid)
	}
	h := httptransport.New(quickEngine{}, &httptransport.Options{MaxBodyBytes: 1 << 16, HeaderFlushDelay: -1, KeepAlive: -1})
	f.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	// The session id "live" stands for a real 2025-03-26 session, so that
	// fuzzed bodies (batches among them) reach a session's handling.
	init := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`))
	init.Header.Set("Content-Type", "application/json")
	init.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, init)
	live := rec.Header().Get("Mcp-Session-Id")
	if live == "" {
		f.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	allowed := map[int]bool{200: true, 202: true, 400: true, 404: true, 405: true, 406: true, 413: true, 415: true}
	f.Fuzz(func(t *testing.T, body, version, method, name, param, sid string) {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid == "live" {
			sid = live
		}
		for k, v := range map[string]string{"Mcp-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name, "Mcp-Param-A": param, "Mcp-Session-Id": sid} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if !allowed[rec.Code] {
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
		}
		if rec.Code >= 400 {
			var m struct {
				Error *jsonrpc.Error `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil || m.Error == nil {
				t.Fatalf("status %d without a JSON-RPC error: %q", rec.Code, rec.Body)
			}
		}
		if rec.Code == http.StatusOK && rec.Body.Len() == 0 {
			t.Fatalf("200 with an empty body for %q", body)
		}
	})
}
