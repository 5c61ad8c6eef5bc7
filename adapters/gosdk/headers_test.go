package gosdk_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// TestHeadersMirrorWhatTheSDKRuns: Mcp-Name and Mcp-Param-* are checked
// against the body the SDK acts on. A body holding "name" and "NAME" (or
// "arguments" and "Arguments") reads one way to a case-folding decoder and
// another to the SDK's case-sensitive one; such a body is refused with
// 400/-32020 rather than running a tool its headers do not name (the
// transport once checked the folded reading and the SDK ran "admin" under
// Mcp-Name: public).
func TestHeadersMirrorWhatTheSDKRuns(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "review", Version: "1"}, nil)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	server.AddTool(&mcp.Tool{Name: "public", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("public ran"), nil
	})
	server.AddTool(&mcp.Tool{Name: "admin", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("admin ran"), nil
	})
	schema := map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}}
	server.AddTool(&mcp.Tool{Name: "regional", InputSchema: schema}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a struct {
			Region string `json:"region"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &a)
		return text("region " + a.Region), nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, nil)
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	url := srv.URL + "/mcp"
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	hdr := func(kv ...string) map[string]string {
		m := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	// Sanity: a plain mismatch is refused.
	resp := rawPost(context.Background(), t, url, hdr("Mcp-Name", "public"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin","arguments":{},`+meta+`}}`)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("plain mismatch: %d %s", resp.StatusCode, b)
	}
	for _, tc := range []struct{ name, header, value, body string }{
		{"Mcp-Name", "Mcp-Name", "public", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"admin","NAME":"public","arguments":{},` + meta + `}}`},
		{"Mcp-Param", "Mcp-Param-Region", "us", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"regional","arguments":{"region":"eu"},"Arguments":{"region":"us"},` + meta + `}}`},
	} {
		kv := []string{"Mcp-Name", "public"}
		if tc.header == "Mcp-Param-Region" {
			kv = []string{"Mcp-Name", "regional", tc.header, tc.value}
		}
		resp := rawPost(context.Background(), t, url, hdr(kv...), tc.body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Errorf("%s: %s: %s sent, status %d, want 400/-32020; the SDK ran: %s", tc.name, tc.header, tc.value, resp.StatusCode, b)
		}
	}
}
