package gosdk_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

type greetArgs struct {
	Name string `json:"name"`
}

func greet(ctx context.Context, req *mcp.CallToolRequest, in greetArgs) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + in.Name}}}, nil, nil
}

// ExampleNewEngine serves a go-sdk server with httptransport.New and calls
// its tool from go-sdk clients of two eras on the one URL: a 2026-07-28
// client (one stateless POST per call) and a 2025-11-25 one (a session).
func ExampleNewEngine() {
	server := mcp.NewServer(&mcp.Implementation{Name: "svc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "say hello"}, greet)
	engine := gosdk.NewEngine(server, nil)
	h := httptransport.New(engine, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux) // a program serves mux with an http.Server
	defer func() {
		_ = h.Shutdown(context.Background()) // the transport first, then the HTTP server, then the engine
		srv.Close()
		_ = engine.Close()
	}()

	ctx := context.Background()
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			log.Fatal(err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: greetArgs{Name: "Ada"}})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(version, "session:", cs.ID() != "", res.Content[0].(*mcp.TextContent).Text)
		_ = cs.Close()
	}
	// Output:
	// 2026-07-28 session: false hello Ada
	// 2025-11-25 session: true hello Ada
}
