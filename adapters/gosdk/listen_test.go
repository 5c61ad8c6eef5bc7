package gosdk_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// TestListenHeldWithSDK: go-sdk's 2026-07-28 client opens
// subscriptions/listen streams for list changes and for a resource; the
// engine holds them (ErrHold) and the transport parks them, and the SDK's
// notifications still arrive, through the engine's one watcher session:
// no listen keeps an SDK session of its own.
func TestListenHeldWithSDK(t *testing.T) {
	t.Parallel()
	server := watchedServer("listen")
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	const uri = watchedURI
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, nil)
	srv := httptest.NewUnstartedServer(h)
	var hijacked atomic.Int32
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateHijacked {
			hijacked.Add(1)
		}
	}
	srv.Start()
	stopAtCleanup(t, h, srv, engine)
	sessions := func() int {
		n := 0
		for range server.Sessions() {
			n++
		}
		return n
	}
	engine.Describe(context.Background()) // starts the engine's own watcher session
	before := sessions()

	toolsChanged := make(chan struct{}, 16)
	updated := make(chan string, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "listener", Version: "1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { toolsChanged <- struct{}{} },
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20260728})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}

	// The listens are asynchronous in the client: repeat the change until
	// the notification arrives.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		mcp.AddTool(server, &mcp.Tool{Name: fmt.Sprint("added", i)}, func(context.Context, *mcp.CallToolRequest, echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		select {
		case <-toolsChanged:
		case <-tick.C:
			continue
		case <-ctx.Done():
			t.Fatal("no tools/list_changed on the listen stream")
		}
		break
	}
	for {
		if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-updated:
			if got != uri {
				t.Fatalf("updated %q", got)
			}
		case <-tick.C:
			continue
		case <-ctx.Done():
			t.Fatal("no resources/updated on the listen stream")
		}
		break
	}
	waitUntil(t, "both listen streams to be parked", func() bool { return hijacked.Load() == 2 })
	if n := sessions(); n != before {
		t.Fatalf("%d SDK sessions beside the engine's own, want none: the listens share its watcher", n-before)
	}
	// A call still works beside the held streams.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "still here"}})
	if err != nil || textOf(t, res) != "still here" {
		t.Fatalf("echo: %v", err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	if n := sessions(); n != before {
		t.Fatalf("%d SDK sessions beside the engine's own after the client left", n-before)
	}
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for " + what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
