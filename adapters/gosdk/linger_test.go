package gosdk_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// testLinger is the SessionLinger of these tests: a session's SDK session
// closes this long after the client last needed it.
const testLinger = 50 * time.Millisecond

// serveLinger serves server with SessionLinger linger on mn until the
// test ends. The tests of the linger run in synctest bubbles, where the
// linger (50 ms) and the waits past it are the bubble's: a loaded machine
// cannot stretch one past the other.
func serveLinger(t *testing.T, mn *testutil.MemNet, server *mcp.Server, linger time.Duration) string {
	t.Helper()
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), SessionLinger: linger})
	h := httptransport.New(engine, nil)
	srv := httptest.NewUnstartedServer(h)
	mn.Serve(srv, false)
	stopAtCleanup(t, h, srv, engine)
	return srv.URL + "/mcp"
}

// sdkSessions counts the SDK sessions server holds: the engine's watcher,
// the calls running, and the sessions' own while connected.
func sdkSessions(server *mcp.Server) (n int) {
	for range server.Sessions() {
		n++
	}
	return n
}

// idleSDK waits until server holds no SDK session but the engine's watcher.
func idleSDK(t *testing.T, server *mcp.Server) {
	t.Helper()
	waitUntil(t, "the session's SDK session to close", func() bool { return sdkSessions(server) == 1 })
}

// heldSDK checks, past the linger, that server holds want SDK sessions,
// waiting for those of calls that just ended to go: fewer never come
// back.
func heldSDK(t *testing.T, server *mcp.Server, want int) {
	t.Helper()
	time.Sleep(4 * testLinger)
	waitUntil(t, fmt.Sprintf("%d SDK sessions held past the linger", want), func() bool { return sdkSessions(server) == want })
}

var lingerEras = []string{httptransport.Version20241105, httptransport.Version20250326, httptransport.Version20251125}

// TestIdleSessionHearsListChanges: a session whose SDK session has closed
// (idle past the linger) still hears of tool list changes on its stream.
func TestIdleSessionHearsListChanges(t *testing.T) {
	t.Parallel()
	for _, version := range lingerEras {
		t.Run(version, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mn := &testutil.MemNet{}
				server := mcp.NewServer(&mcp.Implementation{Name: "lists", Version: "1.0.0"}, nil)
				url := serveLinger(t, mn, server, testLinger)
				changed := make(chan struct{}, 64)
				client := mcp.NewClient(&mcp.Implementation{Name: "lists-client", Version: "1.0.0"}, &mcp.ClientOptions{
					ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
				})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				connectEraVia(ctx, t, client, url, version, mn.Client())
				idleSDK(t, server)
				// The 2025-era GET stream opens asynchronously in the client:
				// add tools until a change arrives.
				for i := 0; ; i++ {
					mcp.AddTool(server, &mcp.Tool{Name: fmt.Sprintf("t%d", i)}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
						return &mcp.CallToolResult{}, nil, nil
					})
					select {
					case <-changed:
						return
					case <-time.After(50 * time.Millisecond):
					case <-ctx.Done():
						t.Fatal("no notifications/tools/list_changed")
					}
				}
			})
		})
	}
}

// TestSubscribedSessionStaysConnected: a session subscribed to a resource
// keeps its SDK session past the linger, since the SDK sends resource
// updates only to the sessions it holds, and hears of updates; once
// unsubscribed it lets it go.
func TestSubscribedSessionStaysConnected(t *testing.T) {
	t.Parallel()
	for _, version := range lingerEras {
		t.Run(version, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mn := &testutil.MemNet{}
				server := watchedServer("subs")
				url := serveLinger(t, mn, server, testLinger)
				updated := make(chan string, 16)
				client := mcp.NewClient(&mcp.Implementation{Name: "subs-client", Version: "1.0.0"}, &mcp.ClientOptions{
					ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) { updated <- req.Params.URI },
				})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cs := connectEraVia(ctx, t, client, url, version, mn.Client())
				idleSDK(t, server)
				if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
					t.Fatalf("subscribe: %v", err)
				}
				heldSDK(t, server, 2) // the watcher and the subscribed session's
				for {
					if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: watchedURI}); err != nil {
						t.Fatal(err)
					}
					select {
					case <-updated:
					case <-time.After(20 * time.Millisecond):
						continue
					case <-ctx.Done():
						t.Fatal("no notifications/resources/updated")
					}
					break
				}
				if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
					t.Fatalf("unsubscribe: %v", err)
				}
				idleSDK(t, server)
			})
		})
	}
}

// TestReconnectedSessionKeepsLogLevel: the log level a client set while
// its session's SDK session was closed holds when it connects again (for
// a client notification here), so that a handler's log messages outside
// any call follow it.
func TestReconnectedSessionKeepsLogLevel(t *testing.T) {
	t.Parallel()
	for _, version := range lingerEras {
		t.Run(version, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mn := &testutil.MemNet{}
				server := mcp.NewServer(&mcp.Implementation{Name: "logs", Version: "1.0.0"}, &mcp.ServerOptions{
					RootsListChangedHandler: func(ctx context.Context, req *mcp.RootsListChangedRequest) {
						_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: "roots changed"})
					},
				})
				url := serveLinger(t, mn, server, testLinger)
				logged := make(chan any, 16)
				client := mcp.NewClient(&mcp.Implementation{Name: "logs-client", Version: "1.0.0"}, &mcp.ClientOptions{
					LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { logged <- req.Params.Data },
				})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				cs := connectEraVia(ctx, t, client, url, version, mn.Client())
				idleSDK(t, server)
				if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
					t.Fatal(err)
				}
				idleSDK(t, server)
				for i := 0; ; i++ {
					client.AddRoots(&mcp.Root{URI: fmt.Sprintf("file:///r%d", i)}) // notifications/roots/list_changed
					select {
					case got := <-logged:
						if got != "roots changed" {
							t.Fatalf("logged %v", got)
						}
						return
					case <-time.After(50 * time.Millisecond):
					case <-ctx.Done():
						t.Fatal("no log message at the level the client set")
					}
				}
			})
		})
	}
}

// TestLingerWaitsForClientAnswer: a request the SDK sent outside any call
// (roots/list from an InitializedHandler) keeps the session's SDK session
// up until the client answers, however long past the linger that is.
func TestLingerWaitsForClientAnswer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		got := make(chan error, 1)
		server := mcp.NewServer(&mcp.Implementation{Name: "roots", Version: "1.0.0"}, &mcp.ServerOptions{
			InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
				ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				_, err := req.Session.ListRoots(ctx, nil)
				got <- err
			},
		})
		url := serveLinger(t, mn, server, testLinger)
		client := mcp.NewClient(&mcp.Implementation{Name: "slow-client", Version: "1.0.0"}, nil)
		client.AddRoots(&mcp.Root{URI: "file:///work"})
		client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "roots/list" {
					time.Sleep(10 * testLinger)
				}
				return next(ctx, method, req)
			}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		connectEraVia(ctx, t, client, url, httptransport.Version20251125, mn.Client())
		select {
		case err := <-got:
			if err != nil {
				t.Fatalf("roots/list answered after the linger: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("InitializedHandler never finished")
		}
		idleSDK(t, server)
	})
}

// TestNegativeLingerKeepsSessions: with a negative SessionLinger every
// session's SDK session stays connected while the session lives, so
// Server.Sessions reaches idle sessions too.
func TestNegativeLingerKeepsSessions(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		server := mcp.NewServer(&mcp.Implementation{Name: "kept", Version: "1.0.0"}, nil)
		url := serveLinger(t, mn, server, -1)
		client := mcp.NewClient(&mcp.Implementation{Name: "kept-client", Version: "1.0.0"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		connectEraVia(ctx, t, client, url, httptransport.Version20251125, mn.Client())
		connectEraVia(ctx, t, client, url, httptransport.Version20251125, mn.Client())
		heldSDK(t, server, 3) // the watcher and both sessions'

	})
}

// TestSubscriptionFollowsAcrossInstances: with two instances sharing a
// session store behind a round-robin balancer, a resource subscription
// made through either holds an SDK session on both (an update may start on
// either instance's server), and once the client unsubscribes both let
// theirs go after the linger.
func TestSubscriptionFollowsAcrossInstances(t *testing.T) {
	t.Parallel()
	store := httptransport.NewMemorySessionStore()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var servers []*mcp.Server
	var hosts []string
	for range 2 {
		server := watchedServer("instance")
		engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet, SessionLinger: testLinger})
		h := httptransport.New(engine, &httptransport.Options{Logger: quiet, Sessions: store, DisableResumability: true})
		srv := httptest.NewServer(h)
		stopAtCleanup(t, h, srv, engine)
		servers = append(servers, server)
		hosts = append(hosts, srv.Listener.Addr().String())
	}
	rr := &roundRobin{hosts: hosts, seen: make([]atomic.Int64, 2)}
	client := mcp.NewClient(&mcp.Implementation{Name: "roaming-client", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + hosts[0] + "/mcp", HTTPClient: &http.Client{Transport: rr}, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	visitBoth := func() { // each instance sees the state change on its next request
		for range 2 {
			if err := cs.Ping(ctx, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	visitBoth()
	for _, s := range servers {
		heldSDK(t, s, 2) // the watcher and the subscribed session's
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: watchedURI}); err != nil {
		t.Fatal(err)
	}
	visitBoth()
	for _, s := range servers {
		idleSDK(t, s)
	}
}
