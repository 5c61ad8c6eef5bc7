package httptransport_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestListenHeld: a stream the engine holds behaves as one the engine
// blocks on, whether parked or not: keep-alive comments, list changes
// tagged with the subscription id, and on Handler.Shutdown the final
// result, then a cleanly ended body.
func TestListenHeld(t *testing.T) {
	t.Parallel()
	for _, mode := range httptransport.HeldModes {
		t.Run(mode.Name, func(t *testing.T) {
			opts := mode.Opts
			opts.KeepAlive = 20 * time.Millisecond
			opts.HeaderFlushDelay = time.Minute // the stream opens with its acknowledgement
			s := httptransport.NewHeldServer(t, &opts, mode.H2)
			resp, r := s.Listen(t, context.Background())
			// Keep-alives follow KeepAlive once the stream is open: two
			// come well before this cuts the body.
			cutoff := time.AfterFunc(5*time.Second, func() { resp.Body.Close() })
			defer cutoff.Stop()
			if want := map[bool]int{false: 1, true: 2}[mode.H2]; resp.ProtoMajor != want {
				t.Fatalf("served over HTTP/%d", resp.ProtoMajor)
			}
			// A connection that ends with the stream says so.
			if resp.Close != (mode.Hijacked == 1) {
				t.Fatalf("Connection: close is %v", resp.Close)
			}
			for comments := 0; comments < 2; {
				e, err := r.R.Next()
				if err != nil {
					t.Fatal(err)
				}
				if e.IsComment {
					comments++
				}
			}
			if got := s.Hijacked.Load(); got != mode.Hijacked {
				t.Fatalf("%d connections taken over, want %d", got, mode.Hijacked)
			}
			s.Engine.Broadcast()
			if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" || !strings.Contains(string(m.Params), `"L1"`) {
				t.Fatalf("got %s %s", m.Method, m.Params)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- s.Handler.Shutdown(ctx) }()
			final := r.NextMessage()
			if !final.IsResponse() || final.ID.Raw() != `"L1"` || !strings.Contains(string(final.Result), `"resultType":"complete"`) {
				t.Fatalf("final %s %s", final.ID, final.Result)
			}
			for {
				e, err := r.R.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("after the final result: %v", err)
				}
				if !e.IsComment {
					t.Fatalf("event after the final result: %+v", e)
				}
			}
			if err := <-done; err != nil {
				t.Fatalf("Shutdown: %v", err)
			}
			httptransport.WaitFor(t, "the engine to drop the listener", func() bool { return s.Engine.ListenerCount() == 0 })
		})
	}
}

// TestListenParkedServerShutdown: http.Server.Shutdown, which leaves
// hijacked connections alone, still ends a parked stream with its final
// result, through the hook the handler registers.
func TestListenParkedServerShutdown(t *testing.T) {
	t.Parallel()
	s := httptransport.NewHeldServer(t, nil, false)
	_, r := s.Listen(t, context.Background())
	httptransport.WaitFor(t, "the stream to be parked", func() bool { return s.Hijacked.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.HTTPServer.Config.Shutdown(ctx) }()
	final := r.NextMessage()
	if !final.IsResponse() || !strings.Contains(string(final.Result), `"resultType":"complete"`) {
		t.Fatalf("final %s %s", final.ID, final.Result)
	}
	if err := <-done; err != nil {
		t.Fatalf("server Shutdown: %v", err)
	}
	httptransport.WaitFor(t, "the engine to drop the listener", func() bool { return s.Engine.ListenerCount() == 0 })
}

// TestHoldOnlyForListen: ErrHold from any call but a listen is an
// internal error, not a stream left open.
func TestHoldOnlyForListen(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "hold")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"hold",`+httptransport.Meta+`}}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if id, code, _ := httptransport.RPCError(t, body); id != "9" || code != -32603 {
		t.Fatalf("id %s code %d", id, code)
	}
}

// TestParkedStreamDropsStalledClient: a client that stops reading a parked
// stream is dropped by the per-write deadline, and its call ends, as on a
// stream held on the handler's goroutine.
func TestParkedStreamDropsStalledClient(t *testing.T) {
	t.Parallel()
	s := httptransport.NewHeldServer(t, &httptransport.Options{WriteTimeout: 50 * time.Millisecond}, false)
	s.Listen(t, context.Background()) // and never read again
	httptransport.WaitFor(t, "the stream to be parked", func() bool { return s.Hijacked.Load() == 1 })
	s.Engine.Mu.Lock()
	var call *httptransport.Call
	for c := range s.Engine.Listeners {
		call = c
	}
	s.Engine.Mu.Unlock()
	big := jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":"`+strings.Repeat("x", 256<<10)+`"}`))
	deadline := time.Now().Add(10 * time.Second)
	for s.Engine.ListenerCount() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a stalled client was never dropped")
		}
		_ = call.Send(context.Background(), big)
	}
	if err := call.Send(context.Background(), big); err == nil {
		t.Fatal("Send succeeded on a dropped stream")
	}
}

// encodingMarker is middleware that declares a content encoding when the
// headers go out, as compression middleware does, and exposes the
// original writer (so the stream could be hijacked through it).
type encodingMarker struct{ http.ResponseWriter }

func (m encodingMarker) WriteHeader(code int) {
	m.Header().Set("Content-Encoding", "x-marker")
	m.ResponseWriter.WriteHeader(code)
}

func (m encodingMarker) Unwrap() http.ResponseWriter { return m.ResponseWriter }

// TestCompressedStreamNotParked: a stream whose response declares a content
// encoding stays with the middleware that encodes it.
func TestCompressedStreamNotParked(t *testing.T) {
	t.Parallel()
	e := httptransport.NewTestEngine()
	e.Hold = true
	s := httptransport.StartTestServer(t, e, nil, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(encodingMarker{w}, r)
		})
	}, false)
	resp, r := s.Listen(t, context.Background())
	if resp.Header.Get("Content-Encoding") != "x-marker" {
		t.Fatalf("headers %v", resp.Header)
	}
	s.Engine.Broadcast()
	if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
		t.Fatalf("got %s", m.Method)
	}
	if n := s.Hijacked.Load(); n != 0 {
		t.Fatalf("%d connections taken over", n)
	}
}

// TestParkedHTTP10: an HTTP/1.0 client's stream is parked too, its body
// delimited by the connection's end.
func TestParkedHTTP10(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	conn, err := net.Dial("tcp", s.HTTPServer.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /mcp HTTP/1.0\r\nHost: "+s.HTTPServer.Listener.Addr().String()+"\r\nAccept: text/event-stream\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || len(resp.TransferEncoding) != 0 {
		t.Fatalf("%d %v", resp.StatusCode, resp.TransferEncoding)
	}
	r := httptransport.NewSSEReader(t, resp.Body)
	if e := r.Next(); e.Name != "endpoint" {
		t.Fatalf("first event %+v", e)
	}
	httptransport.WaitFor(t, "the stream to be parked", func() bool { return s.Hijacked.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Handler.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	httptransport.ReadToEnd(t, r)
}

// TestIdleStreamOutlivesWriteTimeout: WriteTimeout bounds each write, not
// a stream's quiet time: on HTTP/2, where net/http turns a pending write
// deadline into a timer that resets the stream, a listen quiet for longer
// than WriteTimeout (keep-alives off) still gets the next list change.
func TestIdleStreamOutlivesWriteTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		for _, h2 := range []bool{false, true} {
			e := httptransport.NewTestEngine()
			e.Hold = true
			s := httptransport.StartBubbleServer(t, mn, e, &httptransport.Options{WriteTimeout: 150 * time.Millisecond, KeepAlive: -1}, nil, h2)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			r := httptransport.NewSSEReader(t, s.Open(ctx, "POST", httptransport.ModernHeaders("subscriptions/listen"), httptransport.ListenBody).Body)
			r.NextMessage() // the acknowledgement
			time.Sleep(400 * time.Millisecond)
			e.Broadcast()
			if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
				t.Errorf("h2 %v: after a quiet spell: %+v", h2, m)
			}
			cancel()
		}
	})
}

// TestServerShutdownEndsHeldStreams: http.Server.Shutdown alone ends held
// streams however they are kept (taken over, DisableHijack, HTTP/2): a
// listen with its final result, a 2025-era GET stream by ending; Shutdown
// returns instead of waiting for them until its deadline.
func TestServerShutdownEndsHeldStreams(t *testing.T) {
	t.Parallel()
	for _, mode := range httptransport.HeldModes {
		t.Run(mode.Name, func(t *testing.T) {
			opts := mode.Opts
			s := httptransport.NewHeldServer(t, &opts, mode.H2)
			sid := s.Initialize(httptransport.Version20251125)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, r := s.Listen(t, ctx)
			gh := httptransport.GetHeaders(sid, httptransport.Version20251125)
			get := httptransport.NewSSEReader(t, s.Open(ctx, "GET", gh, "").Body)
			done := make(chan error, 1)
			go func() { done <- s.HTTPServer.Config.Shutdown(ctx) }()
			if final := r.NextMessage(); !final.IsResponse() || !strings.Contains(string(final.Result), `"resultType":"complete"`) {
				t.Errorf("listen ended with %s %s", final.ID, final.Result)
			}
			for {
				if _, err := get.R.Next(); err != nil {
					break
				}
			}
			if err := <-done; err != nil {
				t.Errorf("http.Server.Shutdown: %v", err)
			}
		})
	}
}

// TestServerShutdownTwice: a second http.Server.Shutdown (a second signal,
// a retry) runs the handler's hook again, harmlessly.
func TestServerShutdownTwice(t *testing.T) {
	t.Parallel()
	s := httptransport.NewHeldServer(t, nil, false)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.Listen(t, ctx)
	for i := range 2 {
		if err := s.HTTPServer.Config.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown %d: %v", i, err)
		}
	}
	time.Sleep(100 * time.Millisecond) // the hooks run in goroutines of their own
}
