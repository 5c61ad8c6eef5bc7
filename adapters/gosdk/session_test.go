package gosdk_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestInitializedHandlerAsksClient: in a 2024-11-05 or 2025-era session the server's
// InitializedHandler runs once the client has sent notifications/initialized,
// and a request it sends the client from there (roots/list, outside any
// call) gets the client's answer, as with the SDK's own handler.
func TestInitializedHandlerAsksClient(t *testing.T) {
	t.Parallel()
	for _, version := range []string{httptransport.Version20241105, httptransport.Version20250326, httptransport.Version20251125} {
		t.Run(version, func(t *testing.T) {
			type outcome struct {
				roots []string
				err   error
			}
			done := make(chan outcome, 2)
			server := mcp.NewServer(&mcp.Implementation{Name: "roots", Version: "1.0.0"}, &mcp.ServerOptions{
				InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
					ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
					defer cancel()
					res, err := req.Session.ListRoots(ctx, nil)
					var o outcome
					if o.err = err; err == nil {
						for _, r := range res.Roots {
							o.roots = append(o.roots, r.URI)
						}
					}
					done <- o
				},
			})
			url := serveSDK(t, server)
			client := mcp.NewClient(&mcp.Implementation{Name: "roots-client", Version: "1.0.0"}, nil)
			client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs := connectEra(ctx, t, client, url, version)
			select {
			case o := <-done:
				if o.err != nil {
					t.Fatalf("roots/list from InitializedHandler: %v", o.err)
				}
				if len(o.roots) != 1 || o.roots[0] != "file:///work" {
					t.Fatalf("roots %v, want [file:///work]", o.roots)
				}
			case <-ctx.Done():
				t.Fatal("InitializedHandler never ran")
			}
			// Once per session: a call afterwards does not run it again.
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			select {
			case <-done:
				t.Fatal("InitializedHandler ran twice")
			case <-time.After(50 * time.Millisecond):
			}
		})
	}
}

// TestResourceSubscriptionInSession: a client of a 2024-11-05 or 2025-era
// session subscribes to a resource and hears of its updates on the
// session's stream, held by the session's own SDK session.
func TestResourceSubscriptionInSession(t *testing.T) {
	t.Parallel()
	for _, version := range []string{httptransport.Version20241105, httptransport.Version20250326, httptransport.Version20251125} {
		t.Run(version, func(t *testing.T) {
			server := watchedServer("subs")
			url := serveSDK(t, server)
			updated := make(chan string, 16)
			client := mcp.NewClient(&mcp.Implementation{Name: "subs-client", Version: "1.0.0"}, &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs := connectEra(ctx, t, client, url, version)
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
				t.Fatalf("subscribe: %v", err)
			}
			// The 2025-era GET stream opens asynchronously in the client:
			// repeat the update until it arrives.
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: watchedURI}); err != nil {
					t.Fatal(err)
				}
				select {
				case got := <-updated:
					if got != watchedURI {
						t.Fatalf("updated %q, want %q", got, watchedURI)
					}
					return
				case <-tick.C:
				case <-ctx.Done():
					t.Fatal("no notifications/resources/updated")
				}
			}
		})
	}
}

// serveSDK serves server through the engine and the transport on loopback
// until the test ends, and returns the endpoint's URL.
func serveSDK(t *testing.T, server *mcp.Server) string {
	t.Helper()
	return serveSDKWith(t, server, nil, io.Discard)
}

// serveSDKWith is serveSDK with the transport's options and the engine's
// log output.
func serveSDKWith(t *testing.T, server *mcp.Server, opts *httptransport.Options, logs io.Writer) string {
	t.Helper()
	return serveSDKOn(t, nil, server, opts, logs)
}

// serveSDKOn is serveSDKWith on mn (for a test in a synctest bubble), or
// on a loopback socket if mn is nil.
func serveSDKOn(t *testing.T, mn *testutil.MemNet, server *mcp.Server, opts *httptransport.Options, logs io.Writer) string {
	t.Helper()
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(logs, nil))})
	h := httptransport.New(engine, opts)
	srv := httptest.NewUnstartedServer(h)
	if mn != nil {
		mn.Serve(srv, false)
	} else {
		srv.Start()
	}
	stopAtCleanup(t, h, srv, engine)
	return srv.URL + "/mcp"
}

// connectEra connects client at version: 2024-11-05 over HTTP+SSE, later
// eras over Streamable HTTP. The session closes when the test ends.
func connectEra(ctx context.Context, t *testing.T, client *mcp.Client, url, version string) *mcp.ClientSession {
	t.Helper()
	return connectEraVia(ctx, t, client, url, version, nil)
}

// connectEraVia is connectEra with hc, if not nil, as the HTTP client.
func connectEraVia(ctx context.Context, t *testing.T, client *mcp.Client, url, version string, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
	if version == httptransport.Version20241105 {
		transport = &mcp.SSEClientTransport{Endpoint: url, HTTPClient: hc}
	}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting at %s: %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

const watchedURI = "file:///watched"

// watchedServer is a server with one resource, watchedURI, that clients
// may subscribe to.
func watchedServer(name string) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1.0.0"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	server.AddResource(&mcp.Resource{URI: watchedURI, Name: "watched"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: watchedURI, Text: "x"}}}, nil
	})
	return server
}

type tagKey struct{}

// TestHandlerSeesRequestContext: a tool handler's context carries what
// the HTTP middleware in front of the endpoint put in the request's
// context (an identity, a router's context), and each call sees its own
// request's, in every era.
func TestHandlerSeesRequestContext(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "ctx", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "tag"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		tag, _ := ctx.Value(tagKey{}).(string)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tag}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tagKey{}, r.Header.Get("X-Tag"))))
	}))
	stopAtCleanup(t, h, srv, engine)

	for _, version := range []string{httptransport.Version20241105, httptransport.Version20250326, httptransport.Version20251125, httptransport.Version20260728} {
		t.Run(version, func(t *testing.T) {
			var tag atomic.Value
			tag.Store("")
			hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				r = r.Clone(r.Context())
				r.Header.Set("X-Tag", tag.Load().(string))
				return http.DefaultTransport.RoundTrip(r)
			})}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: hc}
			if version == httptransport.Version20241105 {
				transport = &mcp.SSEClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: hc}
			}
			client := mcp.NewClient(&mcp.Implementation{Name: "ctx-client", Version: "1.0.0"}, nil)
			cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, want := range []string{"first", "second"} {
				tag.Store(want)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tag", Arguments: map[string]any{"text": ""}})
				if err != nil {
					t.Fatal(err)
				}
				if got := textOf(t, res); got != want {
					t.Fatalf("handler saw tag %q, want %q", got, want)
				}
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestCallAsksClient: a tool asks the client for its roots in the middle
// of a call. In a session the request travels on the call's stream and the
// answer comes back to the tool; a 2026-07-28 call, or a stateless one,
// cannot send the client requests, and the tool gets an error it can
// handle, its own result still reaching the client.
func TestCallAsksClient(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "ask", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		text := ""
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			text = "error: " + err.Error()
		} else {
			for _, r := range res.Roots {
				text += r.URI
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	url := serveSDK(t, server)
	stateless := serveSDKWith(t, server, &httptransport.Options{Stateless: true}, io.Discard)
	for _, c := range []struct {
		name, url, version string
		reaches            bool
	}{
		{httptransport.Version20241105, url, httptransport.Version20241105, true},
		{httptransport.Version20250326, url, httptransport.Version20250326, true},
		{httptransport.Version20251125, url, httptransport.Version20251125, true},
		{httptransport.Version20260728, url, httptransport.Version20260728, false},
		{"stateless " + httptransport.Version20251125, stateless, httptransport.Version20251125, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "ask-client", Version: "1.0.0"}, nil)
			client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cs := connectEra(ctx, t, client, c.url, c.version)
			for range 2 {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "roots", Arguments: map[string]any{"text": ""}})
				if err != nil {
					t.Fatal(err)
				}
				got := textOf(t, res)
				if !c.reaches {
					if !strings.HasPrefix(got, "error: ") {
						t.Fatalf("roots/list in a call with no way back: %q, want an error", got)
					}
				} else if got != "file:///work" {
					t.Fatalf("roots %q, want file:///work", got)
				}
			}
		})
	}
}

// TestEngineCloseEndsWaitingSessionHandlers: Engine.Close ends the SDK
// sessions of the 2025-era sessions still open. For each, OpenSession's
// goroutine closes the session's SDK session, which waits for the handlers
// in flight on it; the control connection's reading went on, so nothing
// interrupted them, and an InitializedHandler waiting for the client's
// roots/list answer (a client with no GET stream yet) kept Close waiting
// forever. The connection's reading now ends first, which cancels them.
func TestEngineCloseEndsWaitingSessionHandlers(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	asking := make(chan struct{}, 1)
	server := mcp.NewServer(&mcp.Implementation{Name: "close", Version: "1"}, &mcp.ServerOptions{
		Logger: quiet,
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			asking <- struct{}{}
			_, _ = req.Session.ListRoots(ctx, nil)
		},
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Logger: quiet})
	srv := httptest.NewServer(h)
	closed := make(chan struct{})
	t.Cleanup(func() { <-closed })   // runs last: after Shutdown
	stopAtCleanup(t, h, srv, engine) // Shutdown ends the session, which frees Close
	rawSession(t, srv.URL+"/mcp")
	select {
	case <-asking:
	case <-time.After(5 * time.Second):
		t.Fatal("InitializedHandler did not run")
	}
	go func() {
		_ = engine.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Error("Engine.Close still waits after 5 s for a session's control connection whose handler awaits the client")
	}
}

// TestDescribeHonoursServerVersions: a server built with
// ServerOptions.SupportedProtocolVersions serves only those versions, and
// the description says so. It listed every version the SDK knows, so the
// transport served the others too: a legacy HTTP+SSE GET opened a
// 2024-11-05 session (and an SDK session behind it) on a server that does
// not speak 2024-11-05, where the transport's rule is 405; and a
// 2026-07-28 request's -32022 listed versions the server does not serve.
func TestDescribeHonoursServerVersions(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	served := []string{httptransport.Version20251125, httptransport.Version20250618, httptransport.Version20250326}
	server := mcp.NewServer(&mcp.Implementation{Name: "versions", Version: "1"}, &mcp.ServerOptions{Logger: quiet, SupportedProtocolVersions: served})
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Logger: quiet})
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	url := srv.URL + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if got := engine.Describe(ctx).Versions; !slices.Equal(got, served) {
		t.Errorf("Describe reports versions %v; the server serves %v", got, served)
	}

	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("legacy HTTP+SSE GET on a server without 2024-11-05: status %d, want 405", resp.StatusCode)
	}
}

// TestNarrowedServerDescriptionCached: on a server that serves only
// 2025-era versions, the engine's tool listing (made at 2026-07-28) failed
// with -32022 every time, so the description was never cached: every
// request that needed it ran server/discover and tools/list again on
// fresh SDK connections and logged a warning. Tool headers are a
// 2026-07-28 matter; such a server's description has none, and is cached.
func TestNarrowedServerDescriptionCached(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		served := []string{httptransport.Version20251125, httptransport.Version20250618, httptransport.Version20250326}
		server := mcp.NewServer(&mcp.Implementation{Name: "narrow", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler), SupportedProtocolVersions: served})
		mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
		})
		var logs testutil.Buffer
		url := serveSDKOn(t, mn, server, nil, &logs)
		hc := mn.Client()
		h := rawSessionVia(t, hc, url)
		const calls = 5
		for i := 0; i < calls; i++ {
			resp := rawPostVia(context.Background(), t, hc, url, h, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, 10+i))
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("call %d: %d", i, resp.StatusCode)
			}
		}
		synctest.Wait() // whatever the calls set off is done
		if n := strings.Count(logs.String(), "listing tools for header validation failed"); n > 1 {
			t.Errorf("%d 2025-era calls on a server serving %v: the description was computed (and a warning logged) %d times; it is never cached:\n%s", calls, served, n, logs.String())
		}
	})
}
