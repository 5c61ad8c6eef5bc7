package httptransport

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/internal/testutil"
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

// TestListenHeldClientClose: a client dropping a held stream ends the
// call's context, whichever way the stream is held (spec 2026-07-28 basic/utilities/cancellation).
func TestListenHeldClientClose(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
				free := !ls.standalone.Attached()
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
	t.Parallel()
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
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		entered, proceed := make(chan struct{}), make(chan struct{})
		wrap := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("X-Slow-Hijack") != "" {
					w = &slowHijackWriter{ResponseWriter: w, entered: entered, proceed: proceed}
				}
				next.ServeHTTP(w, r)
			})
		}
		s := startTestServer(t, mn, NewTestEngine(), nil, wrap, false)
		sid := s.Initialize(Version20250618)
		h := GetHeaders(sid, Version20250618)
		h.Set("X-Slow-Hijack", "1")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp := s.Open(ctx, "GET", h, "")
		<-entered
		shut := make(chan error, 1)
		go func() { shut <- s.HTTPServer.Config.Shutdown(ctx) }()
		synctest.Wait() // the server's Shutdown began, and its hook passed over the stream
		if !serverGoingDown(s) {
			t.Fatal("the server's Shutdown has not begun")
		}
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
	})
}

// TestListenInFlightAtServerShutdown: a listen still in middleware (auth,
// say) when its server's Shutdown begins, on a server the handler already
// watches, ends with its final result too, and Shutdown does not wait for
// it until its deadline, however streams are held.
func TestListenInFlightAtServerShutdown(t *testing.T) {
	t.Parallel()
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
