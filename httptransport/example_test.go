package httptransport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// greeter is a tiny Engine: tools/call answers "hello, NAME". Real servers
// use an engine adapter (adapters/gosdk, adapters/mcpgo, adapters/stdio).
type greeter struct{}

func (greeter) Describe(context.Context) *httptransport.Description {
	return &httptransport.Description{}
}

func (greeter) Serve(_ context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	switch call.Request.Method {
	case "initialize":
		return jsonrpc.NewResponse(call.Request.ID, json.RawMessage(`{"protocolVersion":"`+call.Version+`","capabilities":{"tools":{}},"serverInfo":{"name":"greeter","version":"1"}}`)), nil
	case "tools/call":
		var p struct {
			Arguments struct{ Name string } `json:"arguments"`
		}
		if err := json.Unmarshal(call.Request.Params, &p); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, err.Error())
		}
		text, _ := json.Marshal("hello, " + p.Arguments.Name)
		return jsonrpc.NewResponse(call.Request.ID, json.RawMessage(`{"content":[{"type":"text","text":`+string(text)+`}]}`)), nil
	}
	return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found")
}

func (greeter) Notify(context.Context, *httptransport.Session, *jsonrpc.Message) {}

func (greeter) OpenSession(context.Context, *httptransport.Session, httptransport.Sender) error {
	return nil
}

// post sends body to url with headers and returns the status, the session
// id it was given, and the body.
func post(url, body string, headers map[string]string) (int, string, string) {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), strings.TrimSpace(string(b))
}

// ExampleNew mounts a Handler and calls a tool at 2026-07-28: one POST,
// its version and capabilities in params._meta and the standard headers,
// no session.
func ExampleNew() {
	h := httptransport.New(greeter{}, nil)
	defer h.Shutdown(context.Background())
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	status, _, body := post(srv.URL+"/mcp",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "greet"})
	fmt.Println(status, body)
	// Output: 200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello, Ada"}]}}
}

// ExampleNew_session opens a 2025-11-25 session: initialize mints the
// session id, which every later request names.
func ExampleNew_session() {
	h := httptransport.New(greeter{}, nil)
	defer h.Shutdown(context.Background())
	srv := httptest.NewServer(h)
	defer srv.Close()

	status, sid, _ := post(srv.URL, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}`, nil)
	fmt.Println("initialize:", status, sid != "")
	session := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
	status, _, _ = post(srv.URL, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	fmt.Println("initialized:", status)
	status, _, body := post(srv.URL, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Grace"}}}`, session)
	fmt.Println("tools/call:", status, body)
	// Output:
	// initialize: 200 true
	// initialized: 202
	// tools/call: 200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello, Grace"}]}}
}
