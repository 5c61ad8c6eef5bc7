package adaptertest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// The pieces FuzzExchanges builds JSON-RPC messages from: every method of
// every era (client to server and server to client, requests and
// notifications), ids of every JSON type, params of every shape.
var (
	fuzzMethods = []string{
		"initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/read",
		"resources/templates/list", "resources/subscribe", "resources/unsubscribe", "prompts/list",
		"prompts/get", "completion/complete", "logging/setLevel", "server/discover",
		"subscriptions/listen", "tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list",
		"sampling/createMessage", "roots/list", "elicitation/create",
		"notifications/initialized", "notifications/cancelled", "notifications/progress",
		"notifications/roots/list_changed", "notifications/message", "notifications/tools/list_changed",
		"", "x/unknown",
	}
	fuzzIDs    = []string{"", "1", "-1", "0", "1.5", "1e400", `"s"`, `""`, "null", "{}", "[]", "true", "9007199254740993"}
	fuzzParams = []string{
		"", "null", "{}", "[]", `"p"`,
		`{"name":"echo","arguments":{"text":TEXT}}`,
		`{"name":"nosuch","arguments":{}}`,
		`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}`,
		`{"protocolVersion":TEXT,"capabilities":null}`,
		`{"requestId":1,"reason":TEXT}`,
		`{"progressToken":1,"progress":1}`,
		`{"uri":TEXT}`,
		`{"level":TEXT}`,
		`{"taskId":TEXT}`,
	}
)

// fuzzEras are the ways a fuzzed body is sent: as a 2026-07-28 request
// (its headers, and its _meta when params is an object), in a live
// 2025-11-25 or 2025-03-26 session, or with no session and no headers.
const (
	eraModern = iota
	eraSession
	eraSession0326
	eraBare
	eraCount
)

// FuzzExchanges fuzzes whole exchanges with h, a Handler serving a real
// engine: JSON-RPC requests, notifications and responses of every method,
// with ids of every JSON type, alone or in batches, in every era. Each
// exchange must end within a bound, with a status the transport documents
// and, for an error status, a JSON-RPC error body. The request's context
// ends after 10 s, or 1 s for a subscriptions/listen, which is held until
// then, as until its client leaves; an exchange still running 5 s later is
// a hang, and any other request must have been answered before its
// context ended.
func FuzzExchanges(f *testing.F, h *httptransport.Handler) {
	f.Add(uint8(eraBare), uint8(0), uint8(0), uint8(7), uint8(0), "x") // initialize without an id
	f.Add(uint8(eraSession), uint8(3), uint8(1), uint8(5), uint8(0), "hi")
	f.Add(uint8(eraModern), uint8(3), uint8(1), uint8(5), uint8(0), "hi")
	f.Add(uint8(eraSession0326), uint8(1), uint8(2), uint8(0), uint8(3), "")
	f.Add(uint8(eraModern), uint8(14), uint8(1), uint8(2), uint8(0), "")
	f.Add(uint8(eraSession), uint8(23), uint8(0), uint8(9), uint8(0), "")
	live := map[int]string{
		eraSession:     initSession(f, h, httptransport.Version20251125),
		eraSession0326: initSession(f, h, httptransport.Version20250326),
	}
	allowed := map[int]bool{200: true, 202: true, 400: true, 404: true, 405: true, 406: true, 413: true, 415: true, 429: true}
	f.Fuzz(func(t *testing.T, era, method, id, params, batch uint8, text string) {
		e := int(era) % eraCount
		m := fuzzMethods[int(method)%len(fuzzMethods)]
		body := fuzzMessage(e, m, fuzzIDs[int(id)%len(fuzzIDs)], fuzzParams[int(params)%len(fuzzParams)], text)
		if n := int(batch) % 4; n > 0 {
			members := []string{body}
			for i := 1; i < n; i++ {
				members = append(members, fuzzMessage(e, fuzzMethods[(int(method)+i*7)%len(fuzzMethods)], strconv.Itoa(100+i), "{}", text))
			}
			body = "[" + strings.Join(members, ",") + "]"
		}
		code, out, answeredInTime := exchange(t, h, e, m, live[e], body)
		if !allowed[code] {
			t.Fatalf("status %d for %s: %s", code, body, out)
		}
		if code >= 400 {
			var msg struct {
				Error *jsonrpc.Error `json:"error"`
			}
			if err := json.Unmarshal([]byte(out), &msg); err != nil || msg.Error == nil {
				t.Fatalf("status %d without a JSON-RPC error for %s: %q", code, body, out)
			}
		}
		if !answeredInTime && m != "subscriptions/listen" {
			t.Fatalf("no answer before the request's context ended to %s (status %d, %q)", body, code, out)
		}
	})
}

// fuzzMessage writes one JSON-RPC message: a response when method is
// empty, else a request (or, with no id, a notification) of method.
func fuzzMessage(era int, method, id, params, text string) string {
	quoted, _ := json.Marshal(text)
	params = strings.ReplaceAll(params, "TEXT", string(quoted))
	if era == eraModern && strings.HasPrefix(params, "{") {
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
		if params == "{}" {
			params = "{" + meta + "}"
		} else {
			params = "{" + meta + "," + params[1:]
		}
	}
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0"`)
	if id != "" {
		b.WriteString(`,"id":` + id)
	}
	if method == "" {
		b.WriteString(`,"result":{}}`)
		return b.String()
	}
	b.WriteString(`,"method":` + strconv.Quote(method))
	if params != "" {
		b.WriteString(`,"params":` + params)
	}
	b.WriteString("}")
	return b.String()
}

// exchange posts body to h in era and returns the status and body, and
// whether the handler returned before the request's context ended.
func exchange(t *testing.T, h http.Handler, era int, method, sid, body string) (int, string, bool) {
	// A listen is held until its client leaves: it is let go after 1 s.
	// Anything else must be answered well within 10 s, a bound far above
	// a loaded machine's slowest call, that only a hang passes.
	bound := 10 * time.Second
	if method == "subscriptions/listen" {
		bound = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	switch era {
	case eraModern:
		req.Header.Set("Mcp-Protocol-Version", httptransport.Version20260728)
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", "echo")
	case eraSession, eraSession0326:
		req.Header.Set("Mcp-Session-Id", sid)
	}
	rec := httptest.NewRecorder()
	inTime := make(chan bool, 1)
	go func() {
		h.ServeHTTP(rec, req)
		inTime <- ctx.Err() == nil
	}()
	hang := time.NewTimer(bound + 5*time.Second)
	defer hang.Stop()
	select {
	case ok := <-inTime:
		return rec.Code, rec.Body.String(), ok
	case <-hang.C:
		t.Fatalf("the exchange hangs 5 s after its request's context ended: %s", body)
		return 0, "", false
	}
}

// initSession opens a session at version through h and returns its id.
func initSession(f *testing.F, h http.Handler, version string) string {
	req := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	sid := rec.Header().Get("Mcp-Session-Id")
	if sid == "" {
		f.Fatalf("initialize: %d %s", rec.Code, rec.Body)
	}
	return sid
}
