package gosdk

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestGateCapabilityAllocs: once the capabilities are known, the gate costs
// a call the server advertises for nothing: no allocation, no map.
func TestGateCapabilityAllocs(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "g", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	e := NewEngine(server, &Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer e.Close()
	ctx := context.Background()
	call := &httptransport.Call{Request: &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: "tools/call"}, Version: httptransport.Version20260728}
	if r := e.gateCapability(ctx, call); r != nil {
		t.Fatalf("tools/call refused: %+v", r.Error)
	}
	if n := testing.AllocsPerRun(100, func() {
		if e.gateCapability(ctx, call) != nil {
			t.Fatal("tools/call refused")
		}
	}); n != 0 {
		t.Errorf("%v allocations per tools/call", n)
	}
	call.Request.Method = "prompts/list"
	if r := e.gateCapability(ctx, call); r == nil || r.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("prompts/list without prompts: %+v", r)
	}
}
