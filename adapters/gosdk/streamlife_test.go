package gosdk_test

import (
	"context"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestStreamDurationWithSDKClient: go-sdk's client, whose GET stream the
// server ends again and again (MaxStreamDuration), reconnects it each time
// and keeps its session: it gives a session up after 5 reconnects that
// bring no new event id, so each end carries one (a server-side
// disconnect event). A list change made after many ends still reaches it,
// and calls go on. In a synctest bubble: the 2 s of stream ends pass in
// the bubble's time.
func TestStreamDurationWithSDKClient(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		server := mcp.NewServer(&mcp.Implementation{Name: "life", Version: "1"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
		url := serveSDKOn(t, mn, server, &httptransport.Options{MaxStreamDuration: 200 * time.Millisecond, RetryInterval: 50 * time.Millisecond}, io.Discard)

		changed := make(chan struct{}, 16)
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: mn.Client()}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer cs.Close()
		time.Sleep(2 * time.Second) // the GET stream has been ended some eight times, past the client's 5 retries
		mcp.AddTool(server, &mcp.Tool{Name: "late"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "late " + a.Text}}}, nil, nil
		})
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatal("the list change never reached the client after its GET stream was ended and reopened")
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "late", Arguments: map[string]any{"text": "x"}})
		if err != nil || textOf(t, res) != "late x" {
			t.Fatalf("call after the stream ends: %v %v", res, err)
		}
	})
}
