package gosdk_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// smallBuffers sets a socket's kernel buffer (SO_SNDBUF or SO_RCVBUF) to
// a few KiB, so that a peer that stops reading stalls writes quickly.
func smallBuffers(opt int) func(network, address string, c syscall.RawConn) error {
	return func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 4096) }); err != nil {
			return err
		}
		return serr
	}
}

// TestStalledClientHoldsNoBroadcast: the SDK notifies its sessions one
// after another; a client that stopped reading its stream (its
// connection's buffers full) must not hold up what the others hear. Here
// client A (a 2025-11-25 session's GET stream, or a 2026-07-28 listen)
// subscribes to a resource and never reads, and is sent updates until its
// connection is full; then a tool is added, and client B hears of it at
// once, not when A's writes time out (WriteTimeout, 20 s here).
func TestStalledClientHoldsNoBroadcast(t *testing.T) {
	t.Parallel()
	for _, era := range []string{httptransport.Version20251125, httptransport.Version20260728} {
		t.Run(era, func(t *testing.T) { testStalledClient(t, era) })
	}
}

// listenBody is a 2026-07-28 listen for tool list changes and, if uri is
// set, that resource's updates.
func listenBody(id int, uri string) string {
	subs := ""
	if uri != "" {
		subs = `,"resourceSubscriptions":["` + uri + `"]`
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true%s},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, id, subs)
}

// serveSmallSendBuffers serves h on loopback with small socket send
// buffers (a client that stops reading stalls the server's writes soon),
// stopped at cleanup; it returns the listener and the MCP URL.
func serveSmallSendBuffers(t *testing.T, h *httptransport.Handler, engine *gosdk.Engine) (net.Listener, string) {
	t.Helper()
	ln, err := (&net.ListenConfig{Control: smallBuffers(syscall.SO_SNDBUF)}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	stopAtCleanup(t, h, srv, engine)
	return ln, srv.URL + "/mcp"
}

func testStalledClient(t *testing.T, era string) {
	server := watchedServer("stall")
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, &httptransport.Options{WriteTimeout: 20 * time.Second})
	ln, url := serveSmallSendBuffers(t, h, engine)
	modern := era == httptransport.Version20260728

	// Client A: subscribed to the resource, on a stream it never reads.
	conn, err := (&net.Dialer{Control: smallBuffers(syscall.SO_RCVBUF)}).Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if modern {
		body := listenBody(1, watchedURI)
		fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n%s", ln.Addr(), len(body), body)
	} else {
		a := rawSession(t, url)
		resp := rawPost(context.Background(), t, url, a, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"`+watchedURI+`"}}`)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n", ln.Addr(), a["Mcp-Session-Id"])
	}
	if status, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(status, "200") {
		t.Fatalf("A's stream: %q %v", status, err)
	}

	// Client B: a stream read as it comes.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var req *http.Request
	if modern {
		req, _ = http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(listenBody(2, "")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "subscriptions/listen")
	} else {
		req, _ = http.NewRequestWithContext(ctx, "GET", url, nil)
		req.Header.Set("Accept", "text/event-stream")
		for k, v := range rawSession(t, url) {
			req.Header.Set(k, v)
		}
	}
	bResp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer bResp.Body.Close()
	heard := make(chan time.Time, 1)
	go func() {
		sc := bufio.NewScanner(bResp.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "notifications/tools/list_changed") {
				heard <- time.Now()
				return
			}
		}
	}()

	// Fill A's connection with updates (from a goroutine: with a client
	// stalled, the SDK's ResourceUpdated may wait on it).
	filled := make(chan struct{})
	go func() {
		defer close(filled)
		for range 2000 {
			_ = server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: watchedURI})
		}
	}()
	select {
	case <-filled:
	case <-time.After(2 * time.Second):
		t.Log("the updates wait on A")
	}

	start := time.Now()
	server.AddTool(&mcp.Tool{Name: "late", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	select {
	case at := <-heard:
		t.Logf("B heard of the new tool after %v", at.Sub(start))
	case <-time.After(5 * time.Second):
		t.Fatalf("B did not hear of the new tool within 5 s: the stalled client A holds the broadcast")
	}
}

// TestRefusedSessionRequestKeepsSession: a 2025-era session's
// server-to-client request (roots/list from a RootsListChangedHandler
// here) that finds the session's outbox full (its GET stream stalled) is
// refused, and that request alone fails. The refusal reached the SDK
// unmarked, which took it for a broken connection and closed the
// session's SDK connection: its resource subscriptions and list changes
// were gone for good, though the client read again on a new GET stream.
// In a synctest bubble: on a loaded machine the new stream's backlog (the
// full outbox, 1 MiB) took longer to go out than the test waited.
func TestRefusedSessionRequestKeepsSession(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		rootsErr := make(chan error, 1)
		server := mcp.NewServer(&mcp.Implementation{Name: "outbox", Version: "1.0.0"}, &mcp.ServerOptions{
			Logger:             quiet,
			SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
			UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
			RootsListChangedHandler: func(ctx context.Context, req *mcp.RootsListChangedRequest) {
				ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				defer cancel()
				// A request bigger than what is left below the outbox bound.
				_, err := req.Session.ListRoots(ctx, &mcp.ListRootsParams{Meta: mcp.Meta{"trace": strings.Repeat("t", 512)}})
				rootsErr <- err
			},
		})
		server.AddResource(&mcp.Resource{URI: watchedURI, Name: "watched"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: watchedURI, Text: "x"}}}, nil
		})
		url := serveSDKOn(t, mn, server, &httptransport.Options{Logger: quiet, WriteTimeout: 30 * time.Second}, io.Discard)
		hc := mn.Client()
		addr := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")

		sh := rawSessionVia(t, hc, url)
		resp := rawPostVia(context.Background(), t, hc, url, sh, `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"`+watchedURI+`"}}`)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()

		// The session's GET stream, on a connection the client stops reading.
		conn, err := mn.DialContext(context.Background(), "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\nMcp-Session-Id: %s\r\nMcp-Protocol-Version: 2025-11-25\r\n\r\n", addr, sh["Mcp-Session-Id"])
		if status, err := bufio.NewReader(conn).ReadString('\n'); err != nil || !strings.Contains(status, "200") {
			t.Fatalf("GET stream: %q %v", status, err)
		}
		// Updates until the connection and then the outbox (1 MiB) are full;
		// past it they are dropped (accepted).
		for range 20000 {
			_ = server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: watchedURI})
		}
		{
			resp = rawPostVia(context.Background(), t, hc, url, sh, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
			resp.Body.Close()
			select {
			case err := <-rootsErr:
				t.Logf("roots/list with the outbox full: %v", err)
				if err == nil {
					t.Fatal("roots/list went through: the outbox was not full")
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the RootsListChangedHandler did not finish")
			}
		}

		// The client reads again: a new GET stream.
		conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		var get *http.Response
		for get == nil {
			req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
			req.Header.Set("Accept", "text/event-stream")
			for k, v := range sh {
				req.Header.Set(k, v)
			}
			r, err := hc.Do(req)
			if err != nil {
				t.Fatalf("new GET: %v", err)
			}
			if r.StatusCode == 200 {
				get = r
				break
			}
			r.Body.Close()
			time.Sleep(20 * time.Millisecond)
		}
		defer get.Body.Close()
		heard := make(chan struct{})
		go func() {
			rd := bufio.NewReaderSize(get.Body, 1<<16)
			for {
				line, err := rd.ReadString('\n')
				if strings.Contains(line, "notifications/resources/updated") && strings.Contains(line, "fresh") {
					close(heard)
					return
				}
				if err != nil {
					return
				}
			}
		}()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		deadline := time.After(8 * time.Second)
		for {
			_ = server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: watchedURI, Meta: mcp.Meta{"mark": "fresh"}})
			select {
			case <-heard:
				return
			case <-tick.C:
			case <-deadline:
				n := 0
				for range server.Sessions() {
					n++
				}
				t.Fatalf("the session's subscription no longer delivers resources/updated on its new GET stream (%d SDK sessions left): one refused roots/list closed the session's SDK connection", n)
			}
		}
	})
}
