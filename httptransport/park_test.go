package httptransport

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// NewHeldServer serves a test engine whose listens return ErrHold.
func NewHeldServer(t *testing.T, opts *Options, h2 bool) *TestServer {
	t.Helper()
	e := NewTestEngine()
	e.Hold = true
	return StartTestServer(t, e, opts, nil, h2)
}

// Listen opens a subscriptions/listen stream with id L1 and reads its
// acknowledgement.
func (s *TestServer) Listen(t *testing.T, ctx context.Context) (*http.Response, *SSEReader) {
	t.Helper()
	resp := s.Open(ctx, "POST", ModernHeaders("subscriptions/listen"), `{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+Meta+`}}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	r := NewSSEReader(t, resp.Body)
	if ack := r.NextMessage(); ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message %s", ack.Method)
	}
	return resp, r
}

func WaitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting: " + what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// HeldModes are the ways a held stream is kept: taken over from net/http
// on HTTP/1.1, or on the handler's goroutine where it cannot or must not
// be (Options.DisableHijack, HTTP/2).
var HeldModes = []struct {
	Name     string
	Opts     Options
	H2       bool
	Hijacked int32
}{
	{"http1-parked", Options{}, false, 1},
	{"http1-DisableHijack", Options{DisableHijack: true}, false, 0},
	{"http2", Options{}, true, 0},
}

// TestListenHeld: a stream the engine holds behaves as one the engine
// blocks on, whether parked or not: keep-alive comments, list changes
// tagged with the subscription id, and on Handler.Shutdown the final
// result, then a cleanly ended body.
func TestListenHeld(t *testing.T) {
	for _, mode := range HeldModes {
		t.Run(mode.Name, func(t *testing.T) {
			opts := mode.Opts
			opts.KeepAlive = 20 * time.Millisecond
			opts.HeaderFlushDelay = time.Minute // the stream opens with its acknowledgement
			s := NewHeldServer(t, &opts, mode.H2)
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
			WaitFor(t, "the engine to drop the listener", func() bool { return s.Engine.ListenerCount() == 0 })
		})
	}
}

// TestListenHeldClientClose: a client dropping a held stream ends the
// call's context, whichever way the stream is held (spec 2026-07-28 basic/utilities/cancellation).
func TestListenHeldClientClose(t *testing.T) {
	for _, mode := range HeldModes {
		t.Run(mode.Name, func(t *testing.T) {
			s := NewHeldServer(t, &mode.Opts, mode.H2)
			ctx, cancel := context.WithCancel(context.Background())
			s.Listen(t, ctx)
			if n := s.Engine.ListenerCount(); n != 1 {
				t.Fatalf("%d listeners", n)
			}
			s.Handler.mu.Lock()
			listens := len(s.Handler.listens)
			s.Handler.mu.Unlock()
			if listens != 1 {
				t.Fatalf("%d listen streams", listens)
			}
			cancel()
			WaitFor(t, "the listen to end", func() bool {
				s.Handler.mu.Lock()
				defer s.Handler.mu.Unlock()
				return s.Engine.ListenerCount() == 0 && len(s.Handler.listens) == 0
			})
		})
	}
}

// TestListenParkedServerShutdown: http.Server.Shutdown, which leaves
// hijacked connections alone, still ends a parked stream with its final
// result, through the hook the handler registers.
func TestListenParkedServerShutdown(t *testing.T) {
	s := NewHeldServer(t, nil, false)
	_, r := s.Listen(t, context.Background())
	WaitFor(t, "the stream to be parked", func() bool { return s.Hijacked.Load() == 1 })
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
	WaitFor(t, "the engine to drop the listener", func() bool { return s.Engine.ListenerCount() == 0 })
}

// TestHoldOnlyForListen: ErrHold from any call but a listen is an
// internal error, not a stream left open.
func TestHoldOnlyForListen(t *testing.T) {
	s := NewTestServer(t, nil)
	h := ModernHeaders("tools/call")
	h.Set("Mcp-Name", "hold")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"hold",`+Meta+`}}`)
	if resp.StatusCode != 200 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if id, code, _ := RPCError(t, body); id != "9" || code != -32603 {
		t.Fatalf("id %s code %d", id, code)
	}
}

// ReadToEnd reads events until the body ends, failing on anything but a
// clean end (a chunked body missing its last chunk fails here).
func ReadToEnd(t *testing.T, r *SSEReader) {
	t.Helper()
	for {
		_, err := r.R.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("stream did not end cleanly: %v", err)
		}
	}
}

// TestStandaloneStreamHeld: a 2025-era GET stream, parked or not, carries
// session messages; a client dropping it leaves the session idle (so it
// can expire) and free to open another; Shutdown ends it cleanly.
func TestStandaloneStreamHeld(t *testing.T) {
	for _, mode := range HeldModes {
		t.Run(mode.Name, func(t *testing.T) {
			s := StartTestServer(t, NewTestEngine(), &mode.Opts, nil, mode.H2)
			sid := s.Initialize(Version20251125)
			h := GetHeaders(sid, Version20251125)
			ctx, cancel := context.WithCancel(context.Background())
			get := s.Open(ctx, "GET", h, "")
			if get.Close != (mode.Hijacked == 1) {
				t.Fatalf("Connection: close is %v", get.Close)
			}
			r := NewSSEReader(t, get.Body)
			s.Engine.Broadcast()
			if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
				t.Fatalf("got %s", m.Method)
			}
			// Parking follows the headers; the count settles at once.
			WaitFor(t, "the stream to be parked", func() bool { return s.Hijacked.Load() == mode.Hijacked })
			s.Handler.mu.Lock()
			ls := s.Handler.live[sid]
			s.Handler.mu.Unlock()
			cancel()
			// The first GET counts as active only once its handler holds
			// the stream, which may come after its first event: wait for
			// the stream to be free as well as for the count.
			WaitFor(t, "the session to go idle and its stream to be free", func() bool {
				ls.mu.Lock()
				idle := ls.active == 0
				ls.mu.Unlock()
				ls.standalone.mu.Lock()
				free := ls.standalone.resp.w == nil
				ls.standalone.mu.Unlock()
				return idle && free
			})
			resp := s.Open(context.Background(), "GET", h, "")
			if resp.StatusCode != 200 {
				t.Fatalf("GET after the drop: %d", resp.StatusCode)
			}
			r = NewSSEReader(t, resp.Body)
			s.Engine.Broadcast()
			if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
				t.Fatalf("got %s", m.Method)
			}
			ctx2, cancel2 := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel2()
			if err := s.Handler.Shutdown(ctx2); err != nil {
				t.Fatal(err)
			}
			ReadToEnd(t, r)
		})
	}
}

// TestParkedStreamsServerShutdown: http.Server.Shutdown ends every stream
// parked on its connections: a listen with its final result, a 2025-era
// GET stream and a 2024-11-05 stream (whose session ends with it).
func TestParkedStreamsServerShutdown(t *testing.T) {
	s := NewHeldServer(t, nil, false)
	_, listen := s.Listen(t, context.Background())
	sid := s.Initialize(Version20251125)
	h := GetHeaders(sid, Version20251125)
	get := NewSSEReader(t, s.Open(context.Background(), "GET", h, "").Body)
	legacy, endpoint := OpenLegacy(t, context.Background(), s.URL, nil)
	WaitFor(t, "three streams to be parked", func() bool { return s.Hijacked.Load() == 3 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.HTTPServer.Config.Shutdown(ctx); err != nil {
		t.Fatalf("server Shutdown: %v", err)
	}
	if final := listen.NextMessage(); !final.IsResponse() || !strings.Contains(string(final.Result), `"resultType":"complete"`) {
		t.Fatalf("listen final %s", final.Result)
	}
	ReadToEnd(t, listen)
	ReadToEnd(t, get)
	ReadToEnd(t, legacy)
	WaitFor(t, "the 2024-11-05 session to end", func() bool {
		rec, err := s.Handler.sessions.Get(context.Background(), strings.TrimPrefix(endpoint, "/mcp?sessionId="))
		return rec == nil && err != nil
	})
}

// TestParkedStreamDropsStalledClient: a client that stops reading a parked
// stream is dropped by the per-write deadline, and its call ends, as on a
// stream held on the handler's goroutine.
func TestParkedStreamDropsStalledClient(t *testing.T) {
	s := NewHeldServer(t, &Options{WriteTimeout: 50 * time.Millisecond}, false)
	s.Listen(t, context.Background()) // and never read again
	WaitFor(t, "the stream to be parked", func() bool { return s.Hijacked.Load() == 1 })
	s.Engine.Mu.Lock()
	var call *Call
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
	e := NewTestEngine()
	e.Hold = true
	s := StartTestServer(t, e, nil, func(next http.Handler) http.Handler {
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
	s := NewTestServer(t, nil)
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
	r := NewSSEReader(t, resp.Body)
	if e := r.Next(); e.Name != "endpoint" {
		t.Fatalf("first event %+v", e)
	}
	WaitFor(t, "the stream to be parked", func() bool { return s.Hijacked.Load() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Handler.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	ReadToEnd(t, r)
}

// TestIdleStreamOutlivesWriteTimeout: WriteTimeout bounds each write, not
// a stream's quiet time: on HTTP/2, where net/http turns a pending write
// deadline into a timer that resets the stream, a listen quiet for longer
// than WriteTimeout (keep-alives off) still gets the next list change.
func TestIdleStreamOutlivesWriteTimeout(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		e := NewTestEngine()
		e.Hold = true
		s := StartTestServer(t, e, &Options{WriteTimeout: 150 * time.Millisecond, KeepAlive: -1}, nil, h2)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r := NewSSEReader(t, s.Open(ctx, "POST", ModernHeaders("subscriptions/listen"), ListenBody).Body)
		r.NextMessage() // the acknowledgement
		time.Sleep(400 * time.Millisecond)
		e.Broadcast()
		if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
			t.Errorf("h2 %v: after a quiet spell: %+v", h2, m)
		}
		cancel()
	}
}

// TestServerShutdownEndsHeldStreams: http.Server.Shutdown alone ends held
// streams however they are kept (taken over, DisableHijack, HTTP/2): a
// listen with its final result, a 2025-era GET stream by ending; Shutdown
// returns instead of waiting for them until its deadline.
func TestServerShutdownEndsHeldStreams(t *testing.T) {
	for _, mode := range HeldModes {
		t.Run(mode.Name, func(t *testing.T) {
			opts := mode.Opts
			s := NewHeldServer(t, &opts, mode.H2)
			sid := s.Initialize(Version20251125)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, r := s.Listen(t, ctx)
			gh := GetHeaders(sid, Version20251125)
			get := NewSSEReader(t, s.Open(ctx, "GET", gh, "").Body)
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
	s := NewHeldServer(t, nil, false)
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

// slowHijackWriter is middleware's writer that takes its time handing the
// connection over, so that a Shutdown can begin meanwhile.
type slowHijackWriter struct {
	http.ResponseWriter
	entered, proceed chan struct{}
}

func (w *slowHijackWriter) Flush()                      { _ = http.NewResponseController(w.ResponseWriter).Flush() }
func (w *slowHijackWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
func (w *slowHijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	close(w.entered)
	<-w.proceed
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// TestParkRacesServerShutdown: a GET stream being taken over while its
// server's Shutdown begins (which passes over it, not yet taken) ends all
// the same, instead of staying open on a server that went down.
func TestParkRacesServerShutdown(t *testing.T) {
	entered, proceed := make(chan struct{}), make(chan struct{})
	wrap := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("X-Slow-Hijack") != "" {
				w = &slowHijackWriter{ResponseWriter: w, entered: entered, proceed: proceed}
			}
			next.ServeHTTP(w, r)
		})
	}
	s := StartTestServer(t, NewTestEngine(), nil, wrap, false)
	sid := s.Initialize(Version20250618)
	h := GetHeaders(sid, Version20250618)
	h.Set("X-Slow-Hijack", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp := s.Open(ctx, "GET", h, "")
	<-entered
	shut := make(chan error, 1)
	go func() { shut <- s.HTTPServer.Config.Shutdown(ctx) }()
	Eventually(t, "the server's Shutdown begins", func() bool { return serverGoingDown(s) })
	time.Sleep(100 * time.Millisecond) // the hook has passed over the stream
	close(proceed)
	if err := <-shut; err != nil {
		t.Errorf("server Shutdown: %v", err)
	}
	ended := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, resp.Body)
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(3 * time.Second):
		t.Error("the GET stream taken over as its server went down is still open")
	}
}

// TestListenInFlightAtServerShutdown: a listen still in middleware (auth,
// say) when its server's Shutdown begins, on a server the handler already
// watches, ends with its final result too, and Shutdown does not wait for
// it until its deadline, however streams are held.
func TestListenInFlightAtServerShutdown(t *testing.T) {
	for _, mode := range HeldModes {
		t.Run(mode.Name, func(t *testing.T) {
			entered, proceed := make(chan struct{}), make(chan struct{})
			wrap := func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Header.Get("X-Slow") != "" {
						close(entered)
						<-proceed
					}
					next.ServeHTTP(w, r)
				})
			}
			opts := mode.Opts
			e := NewTestEngine()
			e.Hold = true
			s := StartTestServer(t, e, &opts, wrap, mode.H2)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			s.Listen(t, ctx) // the handler watches the server from now on
			h := ModernHeaders("subscriptions/listen")
			h.Set("X-Slow", "1")
			respC := make(chan *http.Response, 1)
			go func() {
				respC <- s.Open(ctx, "POST", h, `{"jsonrpc":"2.0","id":"L2","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+Meta+`}}`)
			}()
			<-entered
			shut := make(chan error, 1)
			go func() { shut <- s.HTTPServer.Config.Shutdown(ctx) }()
			Eventually(t, "the server's Shutdown begins", func() bool { return serverGoingDown(s) })
			close(proceed)
			if err := <-shut; err != nil {
				t.Errorf("http.Server.Shutdown: %v", err)
			}
			body, _ := io.ReadAll((<-respC).Body)
			if !strings.Contains(string(body), `"resultType":"complete"`) {
				t.Errorf("the listen in flight at Shutdown ended with %q", body)
			}
		})
	}
}

// serverGoingDown reports whether the handler has seen its server's
// Shutdown begin.
func serverGoingDown(s *TestServer) bool {
	v, ok := s.Handler.watched.Load(s.HTTPServer.Config)
	if !ok {
		return false
	}
	select {
	case <-v.(*serverWatch).downC():
		return true
	default:
		return false
	}
}
