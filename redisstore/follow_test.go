package redisstore_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

// follower is an instance for the tests of session state and session
// messages across instances: a server with a tool that logs, a
// subscribable resource, and an initialized handler that asks the client
// for its roots.
type follower struct {
	url    string
	server *mcp.Server
	roots  chan string // what the initialized handler's roots/list got
}

const watchedURI = "test://watched"

func startFollower(t *testing.T, name string) *follower {
	t.Helper()
	store, _ := newStore(t, &redisstore.Options{Prefix: testPrefix(t)})
	f := &follower{roots: make(chan string, 4)}
	server := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				res, err := req.Session.ListRoots(ctx, nil)
				if err != nil {
					f.roots <- "error: " + err.Error()
					return
				}
				if len(res.Roots) == 1 {
					f.roots <- name + " got " + res.Roots[0].URI
				}
			}()
		},
	})
	f.server = server
	server.AddResource(&mcp.Resource{URI: watchedURI, Name: "watched"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: watchedURI, Text: "x"}}}, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "log3"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		for i := range 3 {
			_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: name + " " + string(rune('0'+i))})
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Sessions: store, Events: store, Logger: quiet})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("%s: Shutdown: %v", name, err)
		}
		srv.Close()
		engine.Close()
	})
	f.url = srv.URL
	return f
}

// router sends each request of a client to the instance route picks.
type router struct {
	route func(r *http.Request, body []byte) string // the instance's base URL
}

func (rt router) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	u, _ := url.Parse(rt.route(r, body))
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.URL.Scheme, r2.URL.Host, r2.Host = u.Scheme, u.Host, u.Host
	return http.DefaultTransport.RoundTrip(r2)
}

func connectVia(t *testing.T, rt router, opts *mcp.ClientOptions, standalone bool) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "follower", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: "http://mcp.invalid/mcp", HTTPClient: &http.Client{Transport: rt}, DisableStandaloneSSE: !standalone,
	}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestLogLevelAcrossInstances is the scenario conformance's
// tools-call-with-logging fails without fresh state: the log level is set
// through A after B took the session up, and B's call logs at it.
func TestLogLevelAcrossInstances(t *testing.T) {
	a, b := startFollower(t, "a"), startFollower(t, "b")
	var target atomic.Pointer[string]
	to := func(f *follower) { target.Store(&f.url) }
	to(a)
	var logged atomic.Int32
	cs := connectVia(t, router{func(*http.Request, []byte) string { return *target.Load() }}, &mcp.ClientOptions{
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { logged.Add(1) },
	}, false)
	ctx := ctx5(t)
	to(b)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log3"}); err != nil { // b takes the session up
		t.Fatal(err)
	}
	if n := logged.Load(); n != 0 {
		t.Fatalf("%d messages logged before any level was set", n)
	}
	to(a)
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	to(b)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log3"}); err != nil {
		t.Fatal(err)
	}
	// The client hands notifications to its handler on a goroutine of its
	// own: wait for them a little.
	for deadline := time.Now().Add(5 * time.Second); logged.Load() < 3 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := logged.Load(); n != 3 {
		t.Errorf("the call on b sent %d log messages after setLevel debug on a, want 3", n)
	}
}

// TestResourceUpdatesFollowStream: the session's GET stream is on B, the
// resource is subscribed through A; the updates reach the stream on B,
// whichever instance announces them.
func TestResourceUpdatesFollowStream(t *testing.T) {
	a, b := startFollower(t, "a"), startFollower(t, "b")
	var post atomic.Pointer[string]
	post.Store(&b.url)
	updated := make(chan string, 64)
	cs := connectVia(t, router{func(r *http.Request, _ []byte) string {
		if r.Method == http.MethodGet {
			return b.url // the GET stream is on b
		}
		return *post.Load()
	}}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
	}, true)
	ctx := ctx5(t)
	post.Store(&a.url)
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(8 * time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		// The application announces the change on every instance.
		for _, f := range []*follower{a, b} {
			_ = f.server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: watchedURI})
		}
		select {
		case uri := <-updated:
			if uri != watchedURI {
				t.Fatalf("updated %q", uri)
			}
			return
		case <-deadline:
			t.Fatal("no notifications/resources/updated reached the GET stream on b in 8 s")
		case <-tick.C:
		}
	}
}

// TestRootsAnsweredThroughOtherInstance: the initialized handler on A asks
// the client for its roots outside any call; the request reaches the
// client through its GET stream on B, and the client's answer, POSTed to B,
// reaches the handler on A.
func TestRootsAnsweredThroughOtherInstance(t *testing.T) {
	a, b := startFollower(t, "a"), startFollower(t, "b")
	client := mcp.NewClient(&mcp.Implementation{Name: "follower", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	rt := router{func(r *http.Request, body []byte) string {
		isAnswer := bytes.Contains(body, []byte(`"result"`)) && !bytes.Contains(body, []byte(`"method"`))
		if r.Method == http.MethodGet || isAnswer {
			return b.url
		}
		return a.url
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://mcp.invalid/mcp", HTTPClient: &http.Client{Transport: rt}}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	select {
	case got := <-a.roots:
		if !strings.HasPrefix(got, "a got file:///work") {
			t.Errorf("the initialized handler on a: %s", got)
		}
	case got := <-b.roots:
		t.Fatalf("b ran the initialized handler (%s); the test routes notifications/initialized to a", got)
	case <-time.After(8 * time.Second):
		t.Fatal("the initialized handler on a never got the client's roots")
	}
}

// TestLegacyClientThroughProxy: a 2024-11-05 client (go-sdk's SSE client
// transport) through a round-robin proxy over two instances sharing Redis:
// its GET opens the event stream on one, its POSTs alternate, and every
// call is answered on the stream.
func TestLegacyClientThroughProxy(t *testing.T) {
	insts := []*instance{startInstance(t, "one", true), startInstance(t, "two", true)}
	endpoint := roundRobinProxy(t, insts)
	client := mcp.NewClient(&mcp.Implementation{Name: "legacy", Version: "1"}, nil)
	ctx := ctx5(t)
	// Default options: the client probes with server/discover first.
	cs, err := client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	seen := map[string]bool{}
	for i := range 6 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "where", Arguments: map[string]any{"text": strconv.Itoa(i)}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		seen[strings.Fields(textOf(t, res))[0]] = true
	}
	if len(seen) != 1 {
		t.Errorf("calls ran on %v: a 2024-11-05 session's calls run where its stream is", seen)
	}
}
