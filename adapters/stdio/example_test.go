package stdio_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http/httptest"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
)

// ExampleNew serves the reference "everything" stdio server (installed by
// npm ci) over HTTP, and calls its echo tool with go-sdk's client at
// 2026-07-28.
func ExampleNew() {
	ctx := context.Background()
	script, _ := filepath.Abs("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	engine, err := stdio.New(ctx, stdio.Command{Path: "node", Args: []string{script, "stdio"}}, &stdio.Options{
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
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
