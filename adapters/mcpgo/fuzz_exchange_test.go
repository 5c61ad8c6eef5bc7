package mcpgo_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpmount/mcpmount/adapters/internal/adaptertest"
	"github.com/mcpmount/mcpmount/adapters/mcpgo"
	"github.com/mcpmount/mcpmount/httptransport"
)

// FuzzExchange sends fuzzed JSON-RPC exchanges of every shape through the
// transport and the mcp-go engine: each is answered, or ended, within a
// bound (adaptertest.FuzzExchanges).
func FuzzExchange(f *testing.F) {
	srv := server.NewMCPServer("fuzz", "1.0.0", server.WithToolCapabilities(true), server.WithResourceCapabilities(true, true), server.WithLogging())
	srv.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(req.GetString("text", "")), nil
	})
	srv.AddResource(mcp.NewResource("test://r", "r"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://r", Text: "r"}}, nil
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := mcpgo.NewEngine(srv, &mcpgo.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Logger: quiet})
	f.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		_ = engine.Close()
	})
	adaptertest.FuzzExchanges(f, h)
}
