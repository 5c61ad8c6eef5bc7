package stdio_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
)

// ExampleNew serves a stdio MCP server over HTTP, and calls its echo tool
// with go-sdk's client at 2026-07-28. The server here is a small Go
// program (testdata/hello) run with `go run`; any command that speaks MCP
// on its stdin and stdout will do, such as
// stdio.Command{Path: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}}.
func ExampleNew() {
	ctx := context.Background()
	engine, err := stdio.New(ctx, stdio.Command{Path: "go", Args: []string{"run", "./testdata/hello"}}, &stdio.Options{
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		StartTimeout: 2 * time.Minute, // go run may have the server to compile first
	})
	if err != nil {
		log.Fatal(err)
	}
	handler := httptransport.New(engine, nil)
	srv := httptest.NewServer(handler)
	defer func() {
		_ = handler.Shutdown(ctx) // the HTTP side first,
		srv.Close()
		_ = engine.Close() // then the child: stdin closed, SIGTERM, SIGKILL
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: Echo: hello
}
