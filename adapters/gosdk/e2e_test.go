package gosdk_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type echoArgs struct {
	Text string `json:"text"`
}

type progressArgs struct {
	Count int `json:"count"`
}

// fixture is a real server with tools and an endpoint on loopback.
type fixture struct {
	url       string
	cancelled chan string // names of slow calls whose context ended
	started   chan string
}

func newFixture(t *testing.T, opts *httptransport.Options) *fixture {
	t.Helper()
	f := &fixture{cancelled: make(chan string, 16), started: make(chan string, 16)}
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		who := ""
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			who = req.Extra.TokenInfo.UserID
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text + who}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "progress"}, func(ctx context.Context, req *mcp.CallToolRequest, a progressArgs) (*mcp.CallToolResult, any, error) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= a.Count; i++ {
			if tok != nil {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(a.Count)}); err != nil {
					return nil, nil, err
				}
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.Count)}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "boom"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		panic("boom")
	})
	mcp.AddTool(server, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		f.started <- a.Text
		select {
		case <-ctx.Done():
			f.cancelled <- a.Text
			return nil, nil, ctx.Err()
		case <-time.After(20 * time.Second):
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		}
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, opts)
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	f.url = srv.URL + "/mcp"
	return f
}

// stopAtCleanup shuts the handler down, then the server and the engine,
// when the test ends.
func stopAtCleanup(t *testing.T, h *httptransport.Handler, srv *httptest.Server, engine *gosdk.Engine) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		srv.Close()
		engine.Close()
	})
}

func connect(t *testing.T, url, version string, progress func(*mcp.ProgressNotificationClientRequest)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, &mcp.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
		if progress != nil {
			progress(req)
		}
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("content = %v", res.Content)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// TestGoSDKClientBothEras drives one URL with go-sdk's own client at
// 2026-07-28 and at 2025-11-25: tool calls and progress notifications.
func TestGoSDKClientBothEras(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, version := range []string{httptransport.Version20260728, httptransport.Version20251125, httptransport.Version20250618, httptransport.Version20250326} {
		t.Run(version, func(t *testing.T) {
			var mu sync.Mutex
			var got []float64
			arrived := make(chan struct{}, 64)
			cs := connect(t, f.url, version, func(req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, req.Params.Progress)
				mu.Unlock()
				arrived <- struct{}{}
			})
			if v := cs.InitializeResult().ProtocolVersion; v != version {
				t.Errorf("negotiated %q, want %q", v, version)
			}
			ctx := context.Background()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
			if err != nil {
				t.Fatalf("echo: %v", err)
			}
			if txt := textOf(t, res); txt != "hi" {
				t.Errorf("echo = %q", txt)
			}
			params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"count": 5}}
			params.SetProgressToken("p1")
			res, err = cs.CallTool(ctx, params)
			if err != nil {
				t.Fatalf("progress: %v", err)
			}
			if txt := textOf(t, res); txt != "5" {
				t.Errorf("progress = %q", txt)
			}
			// The client hands notifications to its handler on its own
			// goroutine, so they may land just after the result.
			timeout := time.After(5 * time.Second)
		wait:
			for range 5 {
				select {
				case <-arrived:
				case <-timeout:
					break wait
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 5 {
				t.Errorf("got %d progress notifications %v, want 5", len(got), got)
			}
			// A panicking tool is an error for this call only.
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{"text": "x"}}); err == nil || !strings.Contains(err.Error(), "internal error") {
				t.Errorf("panicking tool: %v", err)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != 4 {
				t.Errorf("ListTools = %v, %v", tools, err)
			}
		})
	}
}

// TestDescribeFollowsToolChanges: the x-mcp-header parameters the transport
// checks come from the tools' schemas, and a tool added later is checked
// once the server announces the change. In a synctest bubble: the SDK
// announces it after 10 ms of the bubble's clock.
func TestDescribeFollowsToolChanges(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		server := mcp.NewServer(&mcp.Implementation{Name: "d", Version: "1"}, nil)
		engine := gosdk.NewEngine(server, nil)
		defer engine.Close()
		ctx := context.Background()
		if d := engine.Describe(ctx); len(d.ToolHeaders) != 0 {
			t.Fatalf("headers before any tool: %v", d.ToolHeaders)
		}
		schema := map[string]any{"type": "object", "properties": map[string]any{
			"region": map[string]any{"type": "string", "x-mcp-header": "Region"},
			"loc":    map[string]any{"type": "object", "properties": map[string]any{"zone": map[string]any{"type": "integer", "x-mcp-header": "Zone"}}},
		}}
		server.AddTool(&mcp.Tool{Name: "geo", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
		deadline := time.Now().Add(5 * time.Second)
		for {
			params := engine.Describe(ctx).ToolHeaders["geo"]
			if len(params) == 2 {
				got := map[string]string{}
				for _, p := range params {
					got[p.Header] = fmt.Sprint(p.Path)
				}
				if got["Region"] != "[region]" || got["Zone"] != "[loc zone]" {
					t.Errorf("params %v", got)
				}
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the new tool's header parameters never appeared: %v", params)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// TestDescribeOutlivesFirstCaller: the request that first needs the
// description may leave while it is being computed (here a slow server
// middleware holds tools/list): it stops waiting at once, and the
// computation goes on for the requests after it, which get the tools'
// header parameters.
func TestDescribeOutlivesFirstCaller(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "d", Version: "1"}, nil)
	schema := map[string]any{"type": "object", "properties": map[string]any{"region": map[string]any{"type": "string", "x-mcp-header": "Region"}}}
	server.AddTool(&mcp.Tool{Name: "geo", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				once.Do(func() {
					close(entered)
					<-release
				})
			}
			return next(ctx, method, req)
		}
	})
	engine := gosdk.NewEngine(server, nil)
	defer engine.Close()
	ctx, leave := context.WithCancel(context.Background())
	got := make(chan *httptransport.Description, 1)
	go func() { got <- engine.Describe(ctx) }()
	<-entered
	leave()
	select {
	case <-got: // the first caller has gone: it waits no more
	case <-time.After(5 * time.Second):
		t.Fatal("a caller that left still waits for the description")
	}
	next := make(chan *httptransport.Description, 1)
	go func() { next <- engine.Describe(context.Background()) }()
	close(release)
	if d := <-next; len(d.ToolHeaders["geo"]) != 1 {
		t.Errorf("after the first caller left: header parameters %v", d.ToolHeaders)
	}
}

// TestCloseDuringSlowDescribe: Close does not wait for a slow tools/list
// the description is being computed from: the handler, which follows its
// context, is cancelled.
func TestCloseDuringSlowDescribe(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "d", Version: "1"}, nil)
	entered := make(chan struct{})
	var once sync.Once
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				once.Do(func() { close(entered) })
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(10 * time.Second):
				}
			}
			return next(ctx, method, req)
		}
	})
	engine := gosdk.NewEngine(server, nil)
	go engine.Describe(context.Background())
	<-entered
	start := time.Now()
	_ = engine.Close()
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("Close took %v behind a slow tools/list", d)
	}
}
