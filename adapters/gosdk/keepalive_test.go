package gosdk_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// keepAliveServer pings every 20 ms and has a tool, slow, that answers
// after 150 ms.
func keepAliveServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "keepalive", Version: "1.0.0"}, &mcp.ServerOptions{KeepAlive: 20 * time.Millisecond})
	mcp.AddTool(server, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(150 * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	return server
}

// TestKeepAliveDuringLongCalls: with the server's KeepAlive set, the SDK
// pings every session it connects, the engine's one-call connections
// included. A call that outlasts several pings still gets its answer in
// every era: 2026-07-28 calls cannot send the client requests, so their
// connection answers the pings; earlier eras' clients answer them.
func TestKeepAliveDuringLongCalls(t *testing.T) {
	url := serveSDK(t, keepAliveServer())
	for _, version := range []string{httptransport.Version20260728, httptransport.Version20251125, httptransport.Version20250326, httptransport.Version20241105} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "keepalive-client", Version: "1.0.0"}, nil)
			cs := connectEra(ctx, t, client, url, version)
			for i := range 2 { // the second call comes after more of the session's pings
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"text": version}})
				if err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
				if got := textOf(t, res); got != version {
					t.Fatalf("call %d answered %q", i, got)
				}
			}
		})
	}
}

// TestKeepAliveUnansweredEndsCall: a 2025-era client that never answers
// the pings on its call's stream gets an internal error for the call once
// the SDK gives up on the connection, not a stream that never ends.
func TestKeepAliveUnansweredEndsCall(t *testing.T) {
	url := serveSDK(t, keepAliveServer())
	h := rawSession(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp := rawPost(ctx, t, url, h, `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"slow","arguments":{"text":"x"}}}`)
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("answer is %s, want a stream", resp.Header.Get("Content-Type"))
	}
	r := sse.NewReader(resp.Body)
	pings := map[string]bool{} // ids of the pings on the stream
	for {
		ev, err := r.Next()
		if err != nil {
			t.Fatalf("stream ended without an answer (pings %v): %v", pings, err)
		}
		if len(ev.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(ev.Data)
		if err != nil {
			t.Fatalf("event %q: %v", ev.Data, err)
		}
		switch m.Method {
		case "ping":
			pings[m.ID.Raw()] = true
			continue
		case "notifications/cancelled":
			// The SDK gives up on a ping: the notice names it by the id
			// the client saw.
			var p struct {
				RequestID jsonrpc.ID `json:"requestId"`
			}
			if err := json.Unmarshal(m.Params, &p); err != nil || !pings[p.RequestID.Raw()] {
				t.Fatalf("cancelled %s names no ping sent on the stream (pings %v)", m.Params, pings)
			}
			continue
		}
		if m.ID.Raw() != `"c1"` || m.Error == nil || m.Error.Code != jsonrpc.CodeInternalError {
			t.Fatalf("answer %+v, want an internal error for c1", m)
		}
		if len(pings) == 0 {
			t.Fatal("the error came without a ping first")
		}
		if _, err := r.Next(); err != io.EOF {
			t.Fatalf("stream goes on after the answer: %v", err)
		}
		return
	}
}
