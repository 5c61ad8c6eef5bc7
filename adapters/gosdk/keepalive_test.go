package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestKeepAliveUnansweredEndsCall: a 2025-era client that opens no GET
// stream and answers no ping. Each call's pings travel on the call's
// stream; when the SDK gives up on them the call gets an internal error,
// never a stream that does not end. The session's own pings (to the absent
// GET stream) going unanswered as well, the SDK closes the session's
// connection, and later calls still get the same answer.
func TestKeepAliveUnansweredEndsCall(t *testing.T) {
	url := serveSDK(t, keepAliveServer())
	h := rawSession(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range 3 {
		id := fmt.Sprintf(`"c%d"`, i)
		answer, pings := rawCall(ctx, t, url, h, id)
		if answer.ID.Raw() != id || answer.Error == nil || answer.Error.Code != jsonrpc.CodeInternalError {
			t.Fatalf("call %d: answer %+v, want an internal error", i, answer)
		}
		if pings == 0 {
			t.Fatalf("call %d: its stream carried no ping", i)
		}
	}
}

// rawCall runs the slow tool in session h and returns the answer and the
// number of pings on the call's stream. A notifications/cancelled on the
// stream must name one of those pings by the id the client saw.
func rawCall(ctx context.Context, t *testing.T, url string, h map[string]string, id string) (*jsonrpc.Message, int) {
	t.Helper()
	resp := rawPost(ctx, t, url, h, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"slow","arguments":{"text":"x"}}}`)
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		body, _ := io.ReadAll(resp.Body)
		m, err := jsonrpc.Decode(body)
		if err != nil {
			t.Fatalf("answer %q: %v", body, err)
		}
		return m, 0
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
		case "notifications/cancelled":
			// The SDK gives up on a ping: the notice names it by the id
			// the client saw.
			var p struct {
				RequestID jsonrpc.ID `json:"requestId"`
			}
			if err := json.Unmarshal(m.Params, &p); err != nil || !pings[p.RequestID.Raw()] {
				t.Fatalf("cancelled %s names no ping sent on the stream (pings %v)", m.Params, pings)
			}
		case "":
			if _, err := r.Next(); err != io.EOF {
				t.Fatalf("stream goes on after the answer: %v", err)
			}
			return m, len(pings)
		}
	}
}
