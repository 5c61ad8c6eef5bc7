package httptransport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestModernValidation covers every row of the conformance suite's reference server, modelcontextprotocol/conformance src/mock-server/stateless.ts; spec 2026-07-28 basic#error-codes that the
// transport owns: each request gets the status and JSON-RPC code the spec
// names, with the request id echoed.
func TestModernValidation(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	discover := func(metaJSON string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{` + metaJSON + `}}`
	}
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `,` + httptransport.Meta + `}}`
	}
	hdr := func(method string, kv ...string) http.Header {
		h := httptransport.ModernHeaders(method)
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				h.Del(kv[i])
				continue
			}
			h.Add(kv[i], kv[i+1])
		}
		return h
	}
	tests := []struct {
		name   string
		header http.Header
		body   string
		status int
		code   int64 // 0: success expected
	}{
		{"discover ok", hdr("server/discover"), discover(httptransport.Meta), 200, 0},
		{"no _meta", hdr("server/discover"), discover(`"x":1`), 400, jsonrpc.CodeInvalidParams},
		{"no params", hdr("server/discover"), `{"jsonrpc":"2.0","id":7,"method":"server/discover"}`, 400, jsonrpc.CodeInvalidParams},
		{"no protocolVersion in _meta", hdr("server/discover"), `{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}}`, 400, jsonrpc.CodeInvalidParams},
		{"no clientCapabilities", hdr("server/discover"), discover(`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`), 400, jsonrpc.CodeInvalidParams},
		{"clientInfo optional", hdr("server/discover"), discover(`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"}}`), 200, 0},
		{"header missing", hdr("server/discover", "Mcp-Protocol-Version", ""), discover(httptransport.Meta), 400, jsonrpc.CodeHeaderMismatch},
		{"header twice", hdr("server/discover", "Mcp-Protocol-Version", "2026-07-28"), discover(httptransport.Meta), 400, jsonrpc.CodeHeaderMismatch},
		{"header differs from _meta", hdr("server/discover"), discover(`"_meta":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}`), 400, jsonrpc.CodeHeaderMismatch},
		{"unsupported version", hdr("server/discover", "Mcp-Protocol-Version", "", "Mcp-Protocol-Version", "v999"), discover(`"_meta":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}`), 400, jsonrpc.CodeUnsupportedProtocolVersion},
		{"Mcp-Method missing", hdr("server/discover", "Mcp-Method", ""), discover(httptransport.Meta), 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Method differs", hdr("tools/list"), discover(httptransport.Meta), 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Method case differs", hdr("TOOLS/CALL", "Mcp-Name", "echo"), call("echo", `{}`), 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name missing", hdr("tools/call"), call("echo", `{}`), 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name differs", hdr("tools/call", "Mcp-Name", "foo"), call("echo", `{}`), 400, jsonrpc.CodeHeaderMismatch},
		{"Mcp-Name ok", hdr("tools/call", "Mcp-Name", "echo"), call("echo", `{"text":"x"}`), 200, 0},
		{"Mcp-Name base64", hdr("tools/call", "Mcp-Name", "=?base64?ZWNobw==?="), call("echo", `{}`), 200, 0},
		{"Mcp-Name non-ASCII", hdr("tools/call", "Mcp-Name", "ech\u00f6"), call("ech\u00f6", `{}`), 400, jsonrpc.CodeHeaderMismatch},
		{"resources/read Mcp-Name is uri", hdr("resources/read", "Mcp-Name", "file:///a"), `{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///b",` + httptransport.Meta + `}}`, 400, jsonrpc.CodeHeaderMismatch},
		{"param header match", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Region", "eu-west"), call("headered", `{"region":"eu-west"}`), 200, 0},
		{"param header mismatch", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Region", "us"), call("headered", `{"region":"eu-west"}`), 400, jsonrpc.CodeHeaderMismatch},
		{"param header missing", hdr("tools/call", "Mcp-Name", "headered"), call("headered", `{"region":"eu-west"}`), 400, jsonrpc.CodeHeaderMismatch},
		{"param header base64", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Region", "=?base64?SGVsbG8=?="), call("headered", `{"region":"Hello"}`), 200, 0},
		{"param header bad base64", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Region", "=?base64?SGVsbG8?="), call("headered", `{"region":"Hello"}`), 400, jsonrpc.CodeHeaderMismatch},
		{"param header BASE64 is literal", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Region", "=?BASE64?SGVsbG8=?="), call("headered", `{"region":"=?BASE64?SGVsbG8=?="}`), 200, 0},
		{"integer compares numerically", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "42"), call("headered", `{"count":42.0}`), 200, 0},
		{"integer mismatch", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "43"), call("headered", `{"count":42}`), 400, jsonrpc.CodeHeaderMismatch},
		{"boolean", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Flag", "true"), call("headered", `{"flag":true}`), 200, 0},
		{"nested property", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Zone", "z1"), call("headered", `{"loc":{"zone":"z1"}}`), 200, 0},
		{"nested property mismatch", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Zone", "z2"), call("headered", `{"loc":{"zone":"z1"}}`), 400, jsonrpc.CodeHeaderMismatch},
		{"null argument without header", hdr("tools/call", "Mcp-Name", "headered"), call("headered", `{"region":null}`), 200, 0},
		{"null argument with header", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Region", "x"), call("headered", `{"region":null}`), 400, jsonrpc.CodeHeaderMismatch},
		// A member a header mirrors, held twice: decoders differ on which
		// counts (the Go SDK reads exact names, encoding/json folds case),
		// so the header cannot be said to mirror it.
		{"name also in another case", hdr("tools/call", "Mcp-Name", "echo"), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"other","NAME":"echo",` + httptransport.Meta + `}}`, 400, jsonrpc.CodeHeaderMismatch},
		{"name repeated", hdr("tools/call", "Mcp-Name", "echo"), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","name":"other",` + httptransport.Meta + `}}`, 400, jsonrpc.CodeHeaderMismatch},
		{"name repeated escaped", hdr("tools/call", "Mcp-Name", "echo"), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","n\u0061me":"other",` + httptransport.Meta + `}}`, 400, jsonrpc.CodeHeaderMismatch},
		{"arguments also in another case", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Region", "us"), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"headered","arguments":{"region":"eu-west"},"ARGUMENTS":{"region":"us"},` + httptransport.Meta + `}}`, 400, jsonrpc.CodeHeaderMismatch},
		{"argument also in another case", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Region", "eu-west"), call("headered", `{"region":"eu-west","REGION":"us"}`), 400, jsonrpc.CodeHeaderMismatch},
		{"nested argument repeated", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Zone", "z1"), call("headered", `{"loc":{"zone":"z1","zone":"z2"}}`), 400, jsonrpc.CodeHeaderMismatch},
		{"unmirrored argument in another case", hdr("tools/call", "Mcp-Name", "echo"), call("echo", `{"text":"x","TEXT":"y"}`), 200, 0},
		{"_meta also in another case", hdr("server/discover"), discover(httptransport.Meta + `,"_META":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}`), 400, jsonrpc.CodeHeaderMismatch},
		{"_meta version repeated", hdr("server/discover"), discover(`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"v999"}`), 400, jsonrpc.CodeHeaderMismatch},
		{"_meta version null", hdr("server/discover"), discover(`"_meta":{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/clientCapabilities":{}}`), 400, jsonrpc.CodeInvalidParams},
		// Integers compare as numbers within ±(2^53−1) only (spec 2026-07-28 basic/transports/streamable-http):
		// beyond it two integers can be the same float64.
		{"integer beyond 2^53-1", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "9007199254740993"), call("headered", `{"count":9007199254740992}`), 400, jsonrpc.CodeHeaderMismatch},
		{"integer 2^53-1", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "9007199254740991"), call("headered", `{"count":9007199254740991}`), 200, 0},
		{"negative integer", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "-9007199254740991"), call("headered", `{"count":-9007199254740991}`), 200, 0},
		{"integer header 42.0", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "42.0"), call("headered", `{"count":42}`), 200, 0},
		{"integer header near but not equal", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "1.0000000000000001"), call("headered", `{"count":1}`), 400, jsonrpc.CodeHeaderMismatch},
		{"integer header with a fraction", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "9007199254740991.4"), call("headered", `{"count":9007199254740991}`), 400, jsonrpc.CodeHeaderMismatch},
		{"argument near but not equal", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "42"), call("headered", `{"count":42.000000000000001}`), 400, jsonrpc.CodeHeaderMismatch},
		{"integer header in hex", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "0x2A"), call("headered", `{"count":42}`), 400, jsonrpc.CodeHeaderMismatch},
		{"integer header as a fraction", hdr("tools/call", "Mcp-Name", "headered", "Mcp-Param-Count", "84/2"), call("headered", `{"count":42}`), 400, jsonrpc.CodeHeaderMismatch},
		{"removed method initialize", hdr("initialize"), `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{` + httptransport.Meta + `}}`, 404, jsonrpc.CodeMethodNotFound},
		{"removed method ping", hdr("ping"), `{"jsonrpc":"2.0","id":7,"method":"ping","params":{` + httptransport.Meta + `}}`, 404, jsonrpc.CodeMethodNotFound},
		{"removed method logging/setLevel", hdr("logging/setLevel"), `{"jsonrpc":"2.0","id":7,"method":"logging/setLevel","params":{"level":"info",` + httptransport.Meta + `}}`, 404, jsonrpc.CodeMethodNotFound},
		{"unknown method", hdr("foo/bar"), `{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{` + httptransport.Meta + `}}`, 404, jsonrpc.CodeMethodNotFound},
		{"response body", hdr("x"), `{"jsonrpc":"2.0","id":7,"result":{}}`, 400, jsonrpc.CodeInvalidRequest},
		{"batch", hdr("x"), `[{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{` + httptransport.Meta + `}}]`, 400, jsonrpc.CodeInvalidRequest},
		{"null id", hdr("server/discover"), `{"jsonrpc":"2.0","id":null,"method":"server/discover","params":{` + httptransport.Meta + `}}`, 400, jsonrpc.CodeInvalidRequest},
		{"session id ignored", hdr("server/discover", "Mcp-Session-Id", "nope"), discover(httptransport.Meta), 200, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := s.Do("POST", tt.header, tt.body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, tt.status, body)
			}
			if resp.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("2026-07-28 response carries Mcp-Session-Id")
			}
			if tt.code == 0 {
				if strings.Contains(body, `"error"`) {
					t.Errorf("unexpected error body %s", body)
				}
				return
			}
			id, code, _ := httptransport.RPCError(t, body)
			if code != tt.code {
				t.Errorf("code = %d, want %d; body %s", code, tt.code, body)
			}
			if tt.status != 400 || !strings.HasPrefix(tt.body, "[") {
				if id != "7" && tt.name != "null id" {
					t.Errorf("id = %s, want 7 echoed", id)
				}
			}
		})
	}
}

// TestModernUnsupportedVersionData checks -32022's data: the versions served
// and the one requested, as sent.
func TestModernUnsupportedVersionData(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("server/discover")
	h.Set("Mcp-Protocol-Version", "v999")
	_, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":"a","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	id, code, data := httptransport.RPCError(t, body)
	if code != jsonrpc.CodeUnsupportedProtocolVersion || id != `"a"` {
		t.Fatalf("code %d id %s", code, id)
	}
	var d struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	if d.Requested != "v999" || len(d.Supported) == 0 || d.Supported[0] != httptransport.Version20260728 {
		t.Errorf("data = %+v", d)
	}
}

// TestModernHeaderNamesAnyCase: header names are case-insensitive, values
// are trimmed (RFC 9110) and then compared exactly.
func TestModernHeaderNamesAnyCase(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := http.Header{}
	h["content-type"] = []string{"application/json"}
	h["MCP-PROTOCOL-VERSION"] = []string{httptransport.Version20260728}
	h["mcp-method"] = []string{"tools/call"}
	h["MCP-NAME"] = []string{"  echo  "}
	// net/http canonicalises names it sends; lowercase keys reach the
	// wire as given, which is what this test needs.
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"},`+httptransport.Meta+`}}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"text":"ok"`) {
		t.Fatalf("status %d body %s", resp.StatusCode, body)
	}
}

// TestModernGetDelete: GET and DELETE naming 2026-07-28 get 405; naming a
// version not served, 400. (Without Options.RequireSessionID such a GET
// that accepts text/event-stream is the 2024-11-05 handshake:
// TestLegacyGetWhateverVersion.)
func TestModernGetDelete(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{RequireSessionID: true})
	for _, method := range []string{"GET", "DELETE"} {
		h := http.Header{}
		h.Set("Mcp-Protocol-Version", httptransport.Version20260728)
		h.Set("Accept", "text/event-stream")
		resp, _ := s.Do(method, h, "")
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
			t.Errorf("%s: status %d Allow %q", method, resp.StatusCode, resp.Header.Get("Allow"))
		}
		h.Set("Mcp-Protocol-Version", "2099-01-01")
		if resp, body := s.Do(method, h, ""); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "unsupported MCP-Protocol-Version") {
			t.Errorf("%s naming a version not served: %d %s", method, resp.StatusCode, body)
		}
	}
}

// TestModernNotification: a notification POST is accepted with 202.
func TestModernNotification(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	resp, body := s.Do("POST", httptransport.ModernHeaders("notifications/cancelled"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	if resp.StatusCode != http.StatusAccepted || body != "" {
		t.Fatalf("status %d body %q", resp.StatusCode, body)
	}
}

// TestModernJSONAndSSE: a call without notifications is answered with JSON;
// one with progress gets its own SSE stream with the stream headers, its
// notifications, then the response.
func TestModernJSONAndSSE(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "echo")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"},`+httptransport.Meta+`}}`)
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "application/json" {
		t.Fatalf("status %d content-type %q", resp.StatusCode, ct)
	}
	if !strings.Contains(body, `"id":1`) {
		t.Errorf("body %s", body)
	}
	h.Set("Mcp-Name", "progress")
	resp, body = s.Do("POST", h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"count":3},"_meta":{"progressToken":"tok","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content-type %q", ct)
	}
	if resp.Header.Get("X-Accel-Buffering") != "no" || !strings.Contains(resp.Header.Get("Cache-Control"), "no-transform") {
		t.Errorf("stream headers %v", resp.Header)
	}
	// The first event carries the headers out: no comment precedes it.
	if !strings.HasPrefix(body, "data: ") {
		t.Errorf("stream starts %q", body[:min(len(body), 20)])
	}
	evs := httptransport.Events(t, body)
	msgs := httptransport.Messages(t, evs)
	if len(msgs) != 4 {
		t.Fatalf("%d messages, want 3 progress + response: %s", len(msgs), body)
	}
	for i, m := range msgs[:3] {
		if m.Method != "notifications/progress" {
			t.Errorf("message %d = %s", i, m.Method)
		}
	}
	if !msgs[3].IsResponse() || msgs[3].ID != jsonrpc.Int64ID(2) {
		t.Errorf("last message %+v", msgs[3])
	}
	for _, e := range evs {
		if e.HasID {
			t.Errorf("2026-07-28 event carries an id %q", e.ID)
		}
	}
}

// TestModernAbortCancels: a client dropping a 2026-07-28 request cancels
// exactly that call's context, and the engine cannot write after it.
func TestModernAbortCancels(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "slow")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"a"},`+httptransport.Meta+`}}`))
		req.Header = h
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}()
	// A second, concurrent call must not be touched by the first's abort.
	h2 := httptransport.ModernHeaders("tools/call")
	h2.Set("Mcp-Name", "slow")
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() {
		req, _ := http.NewRequestWithContext(ctx2, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"b"},`+httptransport.Meta+`}}`))
		req.Header = h2
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}()
	started := map[string]bool{<-s.Engine.Started: true, <-s.Engine.Started: true}
	if !started["a"] || !started["b"] {
		t.Fatalf("started %v", started)
	}
	cancel()
	select {
	case name := <-s.Engine.Cancelled:
		if name != "a" {
			t.Fatalf("cancelled %q, want a", name)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the aborted call's context was not cancelled")
	}
	if err := <-s.Engine.SendErrs; err == nil {
		t.Error("Send after cancellation succeeded; nothing may be written after")
	}
	select {
	case name := <-s.Engine.Cancelled:
		t.Fatalf("call %q cancelled too", name)
	case <-time.After(50 * time.Millisecond):
	}
	<-done
	cancel2()
	if name := <-s.Engine.Cancelled; name != "b" {
		t.Fatalf("cancelled %q", name)
	}
	<-s.Engine.SendErrs
}

// TestModernJSONOnlyClient: a client that accepts only JSON gets the
// response as JSON even when the call sends notifications (they have
// nowhere to go and are dropped).
func TestModernJSONOnlyClient(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "progress")
	h.Set("Accept", "application/json")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"progress","arguments":{"count":3},"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"id":4`) || strings.Contains(body, "notifications/progress") {
		t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// plainWriter wraps a ResponseWriter the naive way: no Flush, no Unwrap,
// as some logging middleware does.
type plainWriter struct{ w http.ResponseWriter }

func (p *plainWriter) Header() http.Header         { return p.w.Header() }
func (p *plainWriter) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *plainWriter) WriteHeader(code int)        { p.w.WriteHeader(code) }

// TestSSEBehindUnflushableWriter: behind middleware whose writer cannot
// flush, an SSE answer cannot stream, but it is not cut either: every
// event and the response arrive, when the response ends.
func TestSSEBehindUnflushableWriter(t *testing.T) {
	t.Parallel()
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(&plainWriter{w}, r) })
	}
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), nil, wrap, false)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "progress")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"progress","arguments":{"count":3},"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	msgs := httptransport.Messages(t, httptransport.Events(t, body))
	if resp.StatusCode != 200 || len(msgs) != 4 || msgs[3].ID.Raw() != "7" {
		t.Errorf("%d, %d messages: %s", resp.StatusCode, len(msgs), body)
	}
}
