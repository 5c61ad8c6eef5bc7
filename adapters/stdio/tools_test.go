package stdio_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsEveryEra lists and calls the everything server's tools through
// the engine with go-sdk's client at every era the transport serves.
func TestToolsEveryEra(t *testing.T) {
	f := newFixture(t, nil)
	for _, version := range eras {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, f.url, version, nil)
			if got := cs.InitializeResult().ProtocolVersion; got != version {
				t.Errorf("negotiated %q, want %q", got, version)
			}
			if got := cs.InitializeResult().ServerInfo.Name; got != "mcp-servers/everything" {
				t.Errorf("server name %q, want the everything server's", got)
			}
			ctx := context.Background()
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			for _, want := range []string{"echo", "get-sum", "trigger-long-running-operation"} {
				if !slices.Contains(names, want) {
					t.Errorf("tools/list lacks %q: %v", want, names)
				}
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello " + version}})
			if err != nil {
				t.Fatalf("tools/call echo: %v", err)
			}
			if got := text(res); !strings.Contains(got, "hello "+version) {
				t.Errorf("echo answered %q", got)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 40}})
			if err != nil {
				t.Fatalf("tools/call get-sum: %v", err)
			}
			if got := text(res); !strings.Contains(got, "42") {
				t.Errorf("get-sum answered %q", got)
			}
		})
	}
}
