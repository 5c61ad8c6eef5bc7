package httptransport_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// flushCounter counts the flushes reaching a response, as the writer of a
// middleware that passes them on.
type flushCounter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (f *flushCounter) Flush() {
	f.n.Add(1)
	_ = http.NewResponseController(f.ResponseWriter).Flush()
}

func (f *flushCounter) Unwrap() http.ResponseWriter { return f.ResponseWriter }

// countFlushes starts a server whose responses count their flushes in n.
func countFlushes(t *testing.T, e *httptransport.TestEngine, opts *httptransport.Options, n *atomic.Int64) *httptransport.TestServer {
	return countFlushesH2(t, e, opts, n, false)
}

// countFlushesH2 is countFlushes, over HTTP/2 (TLS) when h2 is set.
func countFlushesH2(t *testing.T, e *httptransport.TestEngine, opts *httptransport.Options, n *atomic.Int64, h2 bool) *httptransport.TestServer {
	return httptransport.StartTestServer(t, e, opts, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(&flushCounter{ResponseWriter: w, n: n}, r)
		})
	}, h2)
}

// progressCall2026 is a 2026-07-28 call of the progress tool sending
// count notifications.
func progressCall2026(count int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":%d},%s}}`, count, httptransport.MetaWithToken(`"p"`))
}

// TestNotificationsCoalesced: a call's burst of notifications and its answer
// reach the client whole and in order in one flush, where each used to
// take a write and a flush of its own (ten progress notifications cost
// more than the call), and in one flush each when NotificationFlushDelay is
// negative.
func TestNotificationsCoalesced(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		delay   time.Duration
		h2      bool
		flushes int64
	}{
		{"coalesced", time.Hour, false, 1},
		{"coalesced HTTP/2", time.Hour, true, 1},
		{"each at once", -1, false, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			s := countFlushesH2(t, httptransport.NewTestEngine(), &httptransport.Options{NotificationFlushDelay: tc.delay}, &n, tc.h2)
			h := httptransport.ModernHeaders("tools/call")
			h.Set("Mcp-Name", "progress")
			resp, body := s.Do("POST", h, progressCall2026(10))
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" || tc.h2 && resp.ProtoMajor != 2 {
				t.Fatalf("status %d, type %q, %s", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Proto)
			}
			msgs := httptransport.Messages(t, httptransport.Events(t, body))
			if len(msgs) != 11 {
				t.Fatalf("got %d messages, want 10 notifications and the answer: %s", len(msgs), body)
			}
			for i, m := range msgs[:10] {
				if m.Method != "notifications/progress" || !strings.Contains(string(m.Params), fmt.Sprintf(`"progress":%d,`, i+1)) {
					t.Errorf("message %d: %s %s", i, m.Method, m.Params)
				}
			}
			if last := msgs[10]; last.ID.Raw() != "1" || last.Result == nil {
				t.Errorf("answer: %+v", last)
			}
			if got := n.Load(); got != tc.flushes {
				t.Errorf("flushes = %d, want %d", got, tc.flushes)
			}
		})
	}
}

// TestPendingNotificationFlushedAfterDelay: a notification followed by
// silence reaches the client after NotificationFlushDelay, not with the
// call's next message: the tool waits for the test to have read it.
func TestPendingNotificationFlushedAfterDelay(t *testing.T) {
	t.Parallel()
	e := httptransport.NewTestEngine()
	e.Gate = make(chan struct{})
	var n atomic.Int64
	s := countFlushes(t, e, &httptransport.Options{NotificationFlushDelay: 20 * time.Millisecond, HeaderFlushDelay: time.Hour, KeepAlive: time.Hour}, &n)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "progress")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := httptransport.NewSSEReader(t, s.Open(ctx, "POST", h, progressCall2026(2)).Body) // fails at 10 s if it never comes
	if m := r.NextMessage(); m.Method != "notifications/progress" || !strings.Contains(string(m.Params), `"progress":1,`) {
		t.Fatalf("first message %s %s", m.Method, m.Params)
	}
	if got := n.Load(); got != 1 {
		t.Errorf("flushes before the second notification = %d, want 1 (the delayed one)", got)
	}
	close(e.Gate)
	if m := r.NextMessage(); m.Method != "notifications/progress" {
		t.Fatalf("second message %s", m.Method)
	}
	if m := r.NextMessage(); m.Result == nil {
		t.Fatalf("answer %+v", m)
	}
}

// TestServerRequestFlushesPending: a request to the client goes out at once
// with the notifications waiting before it, however long the delay: the
// handler now waits for the client's answer, which needs the request.
func TestServerRequestFlushesPending(t *testing.T) {
	t.Parallel()
	e := httptransport.NewTestEngine()
	var n atomic.Int64
	s := countFlushes(t, e, &httptransport.Options{NotificationFlushDelay: time.Hour}, &n)
	sid := s.Initialize(httptransport.Version20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp := s.Open(ctx, "POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sample","arguments":{"count":3}}}`)
	r := httptransport.NewSSEReader(t, resp.Body)
	for i := range 3 {
		if m := r.NextMessage(); m.Method != "notifications/message" {
			t.Fatalf("message %d: %s", i, m.Method)
		}
	}
	req := r.NextMessage()
	if req.Method != "sampling/createMessage" {
		t.Fatalf("got %s", req.Method)
	}
	answer := `{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`
	if resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), answer); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("answer: %d %s", resp.StatusCode, body)
	}
	if final := r.NextMessage(); final.ID.Raw() != "5" {
		t.Errorf("final %+v", final)
	}
}

// TestHeldStreamsFlushAtOnce: held streams flush every notification at
// once whatever NotificationFlushDelay says: a listen's acknowledgement
// and list changes, held by the engine or blocking it, and a 2025-11-25
// session's GET stream, all kept on the handler (DisableHijack), where a
// response buffers what it is given.
func TestHeldStreamsFlushAtOnce(t *testing.T) {
	t.Parallel()
	opts := &httptransport.Options{NotificationFlushDelay: time.Hour, KeepAlive: time.Hour, HeaderFlushDelay: time.Hour, DisableHijack: true}
	for _, hold := range []bool{false, true} {
		t.Run(fmt.Sprintf("listen hold=%v", hold), func(t *testing.T) {
			e := httptransport.NewTestEngine()
			e.Hold = hold
			s := httptransport.StartTestServer(t, e, opts, nil, false)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			r := httptransport.NewSSEReader(t, s.Open(ctx, "POST", httptransport.ModernHeaders("subscriptions/listen"), `{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+httptransport.Meta+`}}`).Body)
			if m := r.NextMessage(); m.Method != "notifications/subscriptions/acknowledged" {
				t.Fatalf("first message %s", m.Method)
			}
			e.Broadcast()
			if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
				t.Fatalf("second message %s", m.Method)
			}
		})
	}
	t.Run("2025-11-25 GET", func(t *testing.T) {
		e := httptransport.NewTestEngine()
		s := httptransport.StartTestServer(t, e, opts, nil, false)
		sid := s.Initialize(httptransport.Version20251125)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp := s.Open(ctx, "GET", httptransport.GetHeaders(sid, httptransport.Version20251125), "") // attached once its headers are here
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET: %d", resp.StatusCode)
		}
		r := httptransport.NewSSEReader(t, resp.Body)
		e.Broadcast()
		if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
			t.Fatalf("got %s", m.Method)
		}
	})
}

// stallListener hands out connections whose writes the test can stall.
type stallListener struct {
	net.Listener
	mu    sync.Mutex
	conns map[string]*stallConn // by remote address
}

func (l *stallListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	sc := &stallConn{Conn: c, closed: make(chan struct{})}
	l.mu.Lock()
	l.conns[c.RemoteAddr().String()] = sc
	l.mu.Unlock()
	return sc, nil
}

func (l *stallListener) stall(remote string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := l.conns[remote]
	if c == nil {
		return false
	}
	c.mu.Lock()
	c.stalled = true
	c.mu.Unlock()
	return true
}

// stallConn, once stalled, is a client that stopped reading with its
// window full: a write waits for the write deadline, or for ever without
// one (until the connection is closed).
type stallConn struct {
	net.Conn
	mu       sync.Mutex
	stalled  bool
	deadline time.Time
	closed   chan struct{}
	once     sync.Once
}

func (c *stallConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetWriteDeadline(t)
}

func (c *stallConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	c.deadline = t
	c.mu.Unlock()
	return c.Conn.SetDeadline(t)
}

func (c *stallConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	stalled, d := c.stalled, c.deadline
	c.mu.Unlock()
	if !stalled {
		return c.Conn.Write(b)
	}
	var expired <-chan time.Time
	if !d.IsZero() {
		expired = time.After(time.Until(d))
	}
	select {
	case <-expired:
		return 0, os.ErrDeadlineExceeded
	case <-c.closed:
		return 0, net.ErrClosed
	}
}

func (c *stallConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Conn.Close()
}

// TestPendingNotificationFlushedUnderDeadline: a 2025-11-25 call whose
// notification waits for its flush is cancelled (notifications/cancelled)
// while its client has stopped reading. The stream ends without a final
// write; what waits is flushed under the per-write deadline as the
// response detaches, and the connection is let go. Left to net/http after
// the handler returned, it would be written with no deadline in force
// (the server's WriteTimeout is lifted for streams), holding the
// connection's goroutine for as long as the client does not read.
func TestPendingNotificationFlushedUnderDeadline(t *testing.T) {
	t.Parallel()
	e := httptransport.NewTestEngine()
	h := httptransport.New(e, &httptransport.Options{NotificationFlushDelay: time.Hour, WriteTimeout: 200 * time.Millisecond, KeepAlive: -1})
	srv := httptest.NewUnstartedServer(h)
	ln := &stallListener{Listener: srv.Listener, conns: map[string]*stallConn{}}
	srv.Listener = ln
	closed := httptransport.ReportClosed(srv)
	srv.Start()
	t.Cleanup(func() {
		srv.CloseClientConnections() // a stalled write waits for its connection's close
		_ = h.Shutdown(context.Background())
		srv.Close()
	})
	s := &httptransport.TestServer{T: t, URL: srv.URL + "/mcp", Client: srv.Client(), Handler: h, Engine: e, HTTPServer: srv}
	sid := s.Initialize(httptransport.Version20251125)

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"jsonrpc":"2.0","id":"w","method":"tools/call","params":{"name":"notewait","arguments":{"text":"w"}}}`
	req := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Session-Id: %s\r\nMcp-Protocol-Version: %s\r\nContent-Length: %d\r\n\r\n%s", srv.Listener.Addr(), sid, httptransport.Version20251125, len(body), body)
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-e.Started: // the notification is written, waiting for its flush
	case <-time.After(5 * time.Second):
		t.Fatal("the call did not start")
	}
	if !ln.stall(conn.LocalAddr().String()) {
		t.Fatal("the call's connection is unknown")
	}
	if resp, _ := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"w"}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancelled: %d", resp.StatusCode)
	}
	<-e.Cancelled
	httptransport.WaitClosed(t, closed, conn.LocalAddr().String(), "10 s after its call was cancelled, the connection of a client that stopped reading is still held (per-write deadline 200 ms)")
}
