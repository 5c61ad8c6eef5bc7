package httptransport_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestLegacyDropCancels: a 2024-11-05 client leaving (its event stream
// closed) cancels the calls of its session.
func TestLegacyDropCancels(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	_, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, nil)
	h := http.Header{"Content-Type": {"application/json"}}
	if resp, _ := s.DoURL("POST", s.HTTPServer.URL+endpoint, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"lg"}}}`); resp.StatusCode != 202 {
		t.Fatalf("POST %d", resp.StatusCode)
	}
	<-s.Engine.Started
	cancel()
	select {
	case <-s.Engine.Cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("legacy call not cancelled after its event stream closed")
	}
}

// TestDefaultBodyLimit: with nil options a body over 4 MiB gets 413.
func TestDefaultBodyLimit(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "echo")
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("a", 5<<20) + `"},` + httptransport.Meta + `}}`
	if resp, _ := s.Do("POST", h, big); resp.StatusCode != 413 {
		t.Fatalf("5 MiB body with default options: %d", resp.StatusCode)
	}
}

func countComments(t *testing.T, r *httptransport.SSEReader, n int) {
	t.Helper()
	for c := 0; c < n; {
		e, err := r.R.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.IsComment {
			c++
		}
	}
}

// TestKeepAliveGetAndPost: keep-alive comments flow on a 2025-era GET
// stream and on a silent 2026-07-28 call's stream, not only on listens
// (a complaint against the peers: proxies cut quiet streams).
func TestKeepAliveGetAndPost(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{KeepAlive: 20 * time.Millisecond, HeaderFlushDelay: 10 * time.Millisecond})
	sid := s.Initialize(httptransport.Version20251125)
	gh := httptransport.GetHeaders(sid, httptransport.Version20251125)
	gctx, gcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer gcancel()
	countComments(t, httptransport.NewSSEReader(t, s.Open(gctx, "GET", gh, "").Body), 3)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "slow")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	countComments(t, httptransport.NewSSEReader(t, s.Open(ctx, "POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"k"},`+httptransport.Meta+`}}`).Body), 3)
	cancel()
	<-s.Engine.Cancelled
	<-s.Engine.SendErrs
}

// TestWriteTimeoutGetAndPost: an http.Server WriteTimeout shorter than
// the stream kills neither a 2025-era GET stream silent past it nor a
// POST stream whose tool goes quiet.
func TestWriteTimeoutGetAndPost(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		e := httptransport.NewTestEngine()
		gate := make(chan struct{})
		e.Gate = gate
		h := httptransport.New(e, &httptransport.Options{KeepAlive: -1})
		srv := httptest.NewUnstartedServer(h)
		srv.Config.WriteTimeout = 100 * time.Millisecond
		mn.Serve(srv, false)
		defer srv.Close()
		defer h.Shutdown(context.Background())
		s := &httptransport.TestServer{T: t, Handler: h, Engine: e, URL: srv.URL + "/mcp", HTTPServer: srv, Client: srv.Client()}
		sid := s.Initialize(httptransport.Version20251125)
		gh := httptransport.GetHeaders(sid, httptransport.Version20251125)
		get := httptransport.NewSSEReader(t, s.Open(context.Background(), "GET", gh, "").Body)
		post := httptransport.NewSSEReader(t, s.Open(context.Background(), "POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":1}}}`).Body)
		if m := post.NextMessage(); m.Method != "notifications/progress" {
			t.Fatalf("%+v", m)
		}
		time.Sleep(300 * time.Millisecond)
		e.Broadcast()
		if m := get.NextMessage(); m.Method != "notifications/tools/list_changed" {
			t.Fatalf("GET got %s", m.Method)
		}
		gate <- struct{}{}
		post.NextMessage()
		if m := post.NextMessage(); m.ID.Raw() != "2" {
			t.Fatalf("POST final %+v", m)
		}
	})
}

// TestStalledReaderOfLiftedAnswers: with the server's WriteTimeout lifted
// as calls start (it is no longer than twice the header flush delay), a
// client that pipelines fast calls on one connection and never reads is
// still cut off: each JSON answer goes out whole under the per-write
// deadline (WriteTimeout), instead of being left to net/http after the
// handler returns, with no deadline in force.
func TestStalledReaderOfLiftedAnswers(t *testing.T) {
	t.Parallel()
	h := httptransport.New(httptransport.NewTestEngine(), &httptransport.Options{WriteTimeout: 300 * time.Millisecond})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.WriteTimeout = time.Second
	closed := httptransport.ReportClosed(srv)
	srv.Start()
	t.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		srv.Close()
	})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.(*net.TCPConn).SetReadBuffer(4096)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + strings.Repeat("x", 1200) + `"},` + httptransport.Meta + `}}`
	req := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: %d\r\n\r\n%s", srv.Listener.Addr(), len(body), body)
	go func() {
		for range 20000 { // far more than the socket buffers hold
			if _, err := conn.Write([]byte(req)); err != nil {
				return
			}
		}
	}()
	httptransport.WaitClosed(t, closed, conn.LocalAddr().String(), "10 s after a client stopped reading its answers, the server still holds its connection (per-write deadline 300 ms, server WriteTimeout 1 s)")
}

// TestH2GetStreamFirstByte: over HTTP/2 a 2025-era GET stream with nothing
// to say still sends a first byte (a comment) right after its headers, so
// clients waiting for one do not hang.
func TestH2GetStreamFirstByte(t *testing.T) {
	t.Parallel()
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), nil, nil, true)
	sid := s.Initialize(httptransport.Version20251125)
	gh := httptransport.GetHeaders(sid, httptransport.Version20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp := s.Open(ctx, "GET", gh, "")
	if resp.ProtoMajor != 2 {
		t.Fatalf("HTTP/%d", resp.ProtoMajor)
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, b); err != nil || b[0] != ':' {
		t.Fatalf("first byte %q %v", b, err)
	}
}
