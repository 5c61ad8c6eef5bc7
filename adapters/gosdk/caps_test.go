package gosdk_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// capsServer has two tools and one resource, and no prompts.
func capsServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "caps", Version: "1.0.0"}, nil)
	for _, name := range []string{"echo", "echo2"} {
		mcp.AddTool(server, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
	}
	server.AddResource(&mcp.Resource{URI: "file:///r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///r", Text: "x"}}}, nil
	})
	return server
}

// modernPost sends a 2026-07-28 request with its headers and returns the
// status and the answer.
func modernPost(t *testing.T, url, method, name, params string) (int, *jsonrpc.Message) {
	t.Helper()
	h := map[string]string{"Mcp-Protocol-Version": httptransport.Version20260728, "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if params != "" {
		meta += "," + params
	}
	resp := rawPost(context.Background(), t, url, h, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":{`+meta+`}}`)
	return resp.StatusCode, lastMessage(t, resp)
}

// discoverCaps returns the capabilities server/discover advertises.
func discoverCaps(t *testing.T, url string) map[string]json.RawMessage {
	t.Helper()
	status, m := modernPost(t, url, "server/discover", "", "")
	if status != http.StatusOK || m.Error != nil {
		t.Fatalf("server/discover: %d %+v", status, m.Error)
	}
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res.Capabilities
}

func wantMethodNotFound(t *testing.T, what string, status int, m *jsonrpc.Message) {
	t.Helper()
	if status != http.StatusNotFound || m.Error == nil || m.Error.Code != jsonrpc.CodeMethodNotFound || m.ID.Raw() != "7" {
		t.Errorf("%s: %d %s %+v, want 404 with -32601", what, status, m.Result, m.Error)
	}
}

// TestUnadvertisedCapabilityNotFound: at 2026-07-28 a method behind a
// capability server/discover does not advertise (prompts, completions here)
// is -32601 and 404 (spec 2026-07-28 basic/transports/streamable-http; spec 2026-07-28 basic/lifecycle); the advertised ones work as before,
// and a 2025-11-25 session still gets the SDK's own answers.
func TestUnadvertisedCapabilityNotFound(t *testing.T) {
	t.Parallel()
	url := serveSDK(t, capsServer())
	caps := discoverCaps(t, url)
	if _, ok := caps["prompts"]; ok {
		t.Fatalf("discover advertises prompts: %v", caps)
	}
	for _, k := range []string{"tools", "resources", "logging"} {
		if _, ok := caps[k]; !ok {
			t.Fatalf("discover does not advertise %s: %v", k, caps)
		}
	}

	status, m := modernPost(t, url, "prompts/list", "", "")
	wantMethodNotFound(t, "prompts/list", status, m)
	status, m = modernPost(t, url, "prompts/get", "p", `"name":"p"`)
	wantMethodNotFound(t, "prompts/get", status, m)
	status, m = modernPost(t, url, "completion/complete", "", `"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"b"}`)
	wantMethodNotFound(t, "completion/complete", status, m)

	status, m = modernPost(t, url, "tools/call", "echo", `"name":"echo","arguments":{"text":"hi"}`)
	if status != http.StatusOK || m.Error != nil {
		t.Fatalf("tools/call: %d %+v", status, m.Error)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(m.Result, &res); err != nil || textOf(t, &res) != "hi" {
		t.Errorf("tools/call: %s %v", m.Result, err)
	}
	status, m = modernPost(t, url, "resources/read", "file:///r", `"uri":"file:///r"`)
	if status != http.StatusOK || m.Error != nil {
		t.Errorf("resources/read: %d %+v", status, m.Error)
	}

	// 2025-11-25: the SDK answers, as the 2025 spec lets a server.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	cs := connectEra(ctx, t, client, url, httptransport.Version20251125)
	if cs.InitializeResult().Capabilities.Prompts != nil {
		t.Fatalf("initialize advertises prompts")
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 0 {
		t.Errorf("2025-11-25 prompts/list = %v, %v; want the SDK's empty list", prompts, err)
	}
	tr, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "old"}})
	if err != nil || textOf(t, tr) != "old" {
		t.Errorf("2025-11-25 tools/call = %v, %v", tr, err)
	}
}

// TestCapabilityFollowsRuntimeChanges: a prompt added at runtime is served
// at once and discover advertises prompts; once the last prompt is removed
// prompts/list is -32601 again, and so is tools/list once the last tool is.
func TestCapabilityFollowsRuntimeChanges(t *testing.T) {
	t.Parallel()
	server := capsServer()
	url := serveSDK(t, server)
	status, m := modernPost(t, url, "prompts/list", "", "")
	wantMethodNotFound(t, "prompts/list before AddPrompt", status, m)

	server.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	// No waiting: the SDK announces the change later, but it is served now.
	status, m = modernPost(t, url, "prompts/list", "", "")
	if status != http.StatusOK || m.Error != nil {
		t.Fatalf("prompts/list after AddPrompt: %d %+v", status, m.Error)
	}
	var list mcp.ListPromptsResult
	if err := json.Unmarshal(m.Result, &list); err != nil || len(list.Prompts) != 1 || list.Prompts[0].Name != "greet" {
		t.Errorf("prompts/list after AddPrompt: %s %v", m.Result, err)
	}
	if _, ok := discoverCaps(t, url)["prompts"]; !ok {
		t.Errorf("discover does not advertise prompts after AddPrompt")
	}
	status, m = modernPost(t, url, "prompts/get", "greet", `"name":"greet"`)
	if status != http.StatusOK || m.Error != nil {
		t.Errorf("prompts/get: %d %+v", status, m.Error)
	}

	server.RemovePrompts("greet")
	waitUntil(t, "prompts/list to be -32601 again", func() bool {
		status, m := modernPost(t, url, "prompts/list", "", "")
		return status == http.StatusNotFound && m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound
	})

	server.RemoveTools("echo", "echo2")
	waitUntil(t, "tools/list to be -32601 once no tool is left", func() bool {
		status, m := modernPost(t, url, "tools/list", "", "")
		return status == http.StatusNotFound && m.Error != nil && m.Error.Code == jsonrpc.CodeMethodNotFound
	})
	status, m = modernPost(t, url, "resources/list", "", "")
	if status != http.StatusOK || m.Error != nil {
		t.Errorf("resources/list: %d %+v", status, m.Error)
	}
}
