package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// keepAliveServer pings every 25 ms and has a tool, slow, that answers
// after 200 ms, and one, stall, that answers after a second. The SDK gives
// each ping half its interval, and gives up on a session after 4 pings in
// a row fail (about 100 ms; it then waits for the session's handlers to
// return): a loaded machine may answer one ping late now and then, and
// stall outlasts 4 missed pings by far.
func keepAliveServer() *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "keepalive", Version: "1.0.0"}, &mcp.ServerOptions{KeepAlive: 25 * time.Millisecond, KeepAliveFailureThreshold: 4})
	mcp.AddTool(server, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(200 * time.Millisecond):
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "stall"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Second):
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
// connection answers the pings; earlier eras' clients answer them. In a
// synctest bubble: on a loaded machine, four pings in a row answered
// later than their 12.5 ms had the SDK give the session up.
func TestKeepAliveDuringLongCalls(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, version string
		opts          *httptransport.Options
	}{
		{httptransport.Version20260728, httptransport.Version20260728, nil},
		{httptransport.Version20251125, httptransport.Version20251125, nil},
		{httptransport.Version20250326, httptransport.Version20250326, nil},
		{httptransport.Version20241105, httptransport.Version20241105, nil},
		{"stateless " + httptransport.Version20251125, httptransport.Version20251125, &httptransport.Options{Stateless: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mn := &testutil.MemNet{}
				url := serveSDKOn(t, mn, keepAliveServer(), c.opts, io.Discard)
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				client := mcp.NewClient(&mcp.Implementation{Name: "keepalive-client", Version: "1.0.0"}, nil)
				cs := connectEraVia(ctx, t, client, url, c.version, mn.Client())
				for i := range 2 { // the second call comes after more of the session's pings
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"text": c.name}})
					if err != nil {
						t.Fatalf("call %d: %v", i, err)
					}
					if got := textOf(t, res); got != c.name {
						t.Fatalf("call %d answered %q", i, got)
					}
				}
			})
		})
	}
}

// TestKeepAliveToolWatch: the engine's own SDK session that watches for
// tool changes (to refresh what the transport validates) survives the
// SDK's pings, and a tool added later still reaches the description. In a
// synctest bubble, where the pings come on the bubble's clock.
func TestKeepAliveToolWatch(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		server := keepAliveServer()
		engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		defer engine.Close()
		type headerArgs struct {
			Region string `json:"region" jsonschema:"the region"`
		}
		before := engine.Describe(context.Background())
		if _, ok := before.ToolHeaders["regional"]; ok {
			t.Fatal("the tool is described before it exists")
		}
		time.Sleep(150 * time.Millisecond) // several pings, each of which the watcher must answer
		tool := &mcp.Tool{Name: "regional", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)}
		mcp.AddTool(server, tool, func(context.Context, *mcp.CallToolRequest, headerArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{}, nil, nil
		})
		waitUntil(t, "the new tool in the description", func() bool {
			_, ok := engine.Describe(context.Background()).ToolHeaders["regional"]
			return ok
		})
	})
}

// TestKeepAliveUnansweredEndsCall: a 2025-era client that opens no GET
// stream and answers no ping. Each call's pings travel on the call's
// stream; when the SDK gives up on them the call gets an internal error,
// never a stream that does not end. The session's own pings (to the absent
// GET stream) going unanswered as well, the SDK closes the session's
// connection; the methods that ran on it (logging/setLevel here) still
// get answers, on connections of their own. In a synctest bubble, where
// the pings and the SDK's patience run on the bubble's clock.
func TestKeepAliveUnansweredEndsCall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		logs := &testutil.Buffer{}
		url := serveSDKOn(t, mn, keepAliveServer(), nil, logs)
		hc := mn.Client()
		h := rawSessionVia(t, hc, url)
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		for i := range 3 {
			id := fmt.Sprintf(`"c%d"`, i)
			answer, pings := rawCall(ctx, t, hc, url, h, id)
			if answer.ID.Raw() != id || answer.Error == nil || answer.Error.Code != jsonrpc.CodeInternalError {
				t.Fatalf("call %d: answer %+v, want an internal error", i, answer)
			}
			if pings == 0 {
				t.Fatalf("call %d: its stream carried no ping", i)
			}
		}
		waitUntil(t, "the SDK to close the session's connection", func() bool {
			return strings.Contains(logs.String(), "the SDK closed the session's connection")
		})
		resp := rawPostVia(ctx, t, hc, url, h, `{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel","params":{"level":"debug"}}`)
		if m := lastMessage(t, resp); m.ID.Raw() != `"lvl"` || m.Error != nil || m.Result == nil {
			t.Fatalf("logging/setLevel after the session's connection closed: %+v", m)
		}
	})
}

// lastMessage reads a POST's answer, a JSON body or an SSE stream, and
// returns its last message.
func lastMessage(t *testing.T, resp *http.Response) *jsonrpc.Message {
	t.Helper()
	defer resp.Body.Close()
	var data []byte
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		r := sse.NewReader(resp.Body)
		for ev, err := r.Next(); err == nil; ev, err = r.Next() {
			if len(ev.Data) > 0 {
				data = ev.Data
			}
		}
	} else {
		data, _ = io.ReadAll(resp.Body)
	}
	m, err := jsonrpc.Decode(data)
	if err != nil {
		t.Fatalf("answer %q: %v", data, err)
	}
	return m
}

// rawCall runs the stall tool in session h and returns the answer and the
// number of pings on the call's stream. A notifications/cancelled on the
// stream must name one of those pings by the id the client saw.
func rawCall(ctx context.Context, t *testing.T, hc *http.Client, url string, h map[string]string, id string) (*jsonrpc.Message, int) {
	t.Helper()
	resp := rawPostVia(ctx, t, hc, url, h, `{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"stall","arguments":{"text":"x"}}}`)
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

// TestDescribeAnswersKeepAlive: with ServerOptions.KeepAlive set, the SDK
// pings every session it connects, the one-request connections the engine
// lists tools on (describe.go, oneShot) included. oneShot ignored the
// pings, so a listing that outlasted the ping's timeout (1.5 x KeepAlive)
// had its connection closed and its answer dropped: each computation
// waited describeTimeout (10 s), gave a description without tools, cached
// nothing, and the next request started the same doomed one; no
// Mcp-Param-* header was ever checked.
func TestDescribeAnswersKeepAlive(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	server := mcp.NewServer(&mcp.Implementation{Name: "ka", Version: "1"}, &mcp.ServerOptions{KeepAlive: 100 * time.Millisecond, Logger: quiet})
	schema := map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}}
	server.AddTool(&mcp.Tool{Name: "geo", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	// A tools/list that takes a while (a middleware consulting a policy
	// service, say): well past the ping at 100 ms and its 50 ms timeout.
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				select {
				case <-time.After(600 * time.Millisecond):
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return next(ctx, method, req)
		}
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	defer engine.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	start := time.Now()
	d := engine.Describe(ctx)
	if len(d.ToolHeaders["geo"]) != 1 {
		t.Fatalf("after %v: description without the tool's header parameters (%v): the listing's SDK connection was closed by the keepalive it did not answer", time.Since(start).Round(time.Millisecond), d.ToolHeaders)
	}
}

// TestKeepAliveJSONOnlySessionCall: a 2025-era session's POST that takes
// only application/json (the answer is then one JSON body) has no stream
// to carry the SDK's keepalive pings: call.Send refuses them
// (ErrNoStream). They were reported rejected, the SDK closed the call's
// connection after four, and a tool that takes a second (KeepAlive 25 ms)
// got -32603 instead of its result. The engine now answers them, as it
// does for 2026-07-28 calls (callConn.pong).
func TestKeepAliveJSONOnlySessionCall(t *testing.T) {
	t.Parallel()
	url := serveSDK(t, keepAliveServer())
	sh := rawSession(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":"j1","method":"tools/call","params":{"name":"stall","arguments":{"text":"json-only"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	for k, v := range sh {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	m := lastMessage(t, resp)
	if m.Error != nil || !strings.Contains(string(m.Result), "json-only") {
		t.Fatalf("a 1 s tool called by a JSON-only client: status %d, answer error %+v result %s; want the tool's result", resp.StatusCode, m.Error, m.Result)
	}
}
