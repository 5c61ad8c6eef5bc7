package gosdk_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/adapters/internal/adaptertest"
	"github.com/mcpmount/mcpmount/httptransport"
)

// FuzzExchange sends fuzzed JSON-RPC exchanges of every shape through the
// transport and the go-sdk engine: each is answered, or ended, within a
// bound (adaptertest.FuzzExchanges). An initialize sent without an id once
// held its handshake forever here.
func FuzzExchange(f *testing.F) {
	server := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	server.AddResource(&mcp.Resource{URI: "test://r", Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://r", Text: "r"}}}, nil
	})
	server.AddPrompt(&mcp.Prompt{Name: "p"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Logger: quiet})
	f.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		_ = engine.Close()
	})
	adaptertest.FuzzExchanges(f, h)
}
