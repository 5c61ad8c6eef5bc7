package adaptertest

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// Serve makes a Probe with describe (see NewProbe) and starts a loopback
// server for the router that route builds around the MCP endpoint serving
// it; it returns the probe and the server's URL, and stops everything when
// the test ends.
func Serve(t *testing.T, describe func(context.Context) string, route func(endpoint http.Handler) http.Handler) (*Probe, string) {
	t.Helper()
	return ServeOn(t, nil, describe, route)
}

// ServeOn is Serve on mn, for a test in a testing/synctest bubble (its
// clients' HTTP client is mn.Client()), or on a loopback socket if mn is
// nil.
func ServeOn(t *testing.T, mn *testutil.MemNet, describe func(context.Context) string, route func(endpoint http.Handler) http.Handler) (*Probe, string) {
	t.Helper()
	p := NewProbe(describe)
	engine := gosdk.NewEngine(p.Server, nil)
	endpoint := httptransport.New(engine, nil)
	srv := httptest.NewUnstartedServer(route(endpoint))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateHijacked {
			p.Hijacked.Add(1)
		}
	}
	if mn != nil {
		mn.Serve(srv, false)
	} else {
		srv.Start()
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := endpoint.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		srv.Close()
		_ = engine.Close()
	})
	return p, srv.URL
}

// Connect connects a go-sdk client at era; progress receives the client's
// progress notifications, hc (nil for the default) makes its requests.
func Connect(t *testing.T, url, era string, hc *http.Client, progress func(*mcp.ProgressNotificationClientRequest)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if progress != nil {
				progress(req)
			}
		},
	})
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
	if era == httptransport.Version20241105 {
		tr = &mcp.SSEClientTransport{Endpoint: url, HTTPClient: hc}
	}
	// go-sdk's SSE client keeps its event stream on Connect's context, so
	// that context lives as long as the session.
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(wait, cancel)
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: era})
	timer.Stop()
	if err != nil {
		cancel()
		t.Fatalf("connect at %s: %v", era, err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
	})
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		t.Fatalf("negotiated %s, want %s", got, era)
	}
	return cs
}

// Call calls a tool and returns its text, failing the test on errors.
func Call(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: content %v", params.Name, res.Content)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s: tool error %q", params.Name, text)
	}
	return text
}

// WaitFor reads c until key arrives.
func WaitFor(t *testing.T, c <-chan string, key string) {
	t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case k := <-c:
			if k == key {
				return
			}
		case <-timeout:
			t.Fatalf("%s: timed out", key)
		}
	}
}

// CallLate connects a 2024-11-05 client to url and calls block, whose
// POST is answered 202 before the tool runs; once the tool has started,
// it GETs otherURL 50 times, so that the router serves other requests
// and recycles its per-request state, then releases the call and returns
// its result.
func CallLate(t *testing.T, p *Probe, url, otherURL string) (*mcp.CallToolResult, error) {
	t.Helper()
	cs := Connect(t, url, httptransport.Version20241105, nil, nil)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: KeyArgs{Key: "late"}})
		done <- answer{res, err}
	}()
	WaitFor(t, p.Started, "late")
	for range 50 {
		resp, err := http.Get(otherURL)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	p.Open("late")
	a := <-done
	return a.res, a.err
}
