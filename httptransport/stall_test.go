package httptransport_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// stalledLegacyStream opens a 2024-11-05 event stream over a raw TCP
// connection with a tiny receive buffer, reads the endpoint event, and
// never reads again: a client that stopped reading its stream. It returns
// the endpoint and the connection (close it to let the server go).
func stalledLegacyStream(t *testing.T, s *httptransport.TestServer) (endpoint string, conn net.Conn) {
	t.Helper()
	addr := s.HTTPServer.Listener.Addr().String()
	conn = httptransport.DialTinyBuffer(t, addr)
	if _, err := fmt.Fprintf(conn, "GET /mcp HTTP/1.1\r\nHost: %s\r\nAccept: text/event-stream\r\n\r\n", addr); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 512), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("legacy GET: %d", resp.StatusCode)
	}
	e := httptransport.NewSSEReader(t, resp.Body).Next()
	if e.Name != "endpoint" {
		t.Fatalf("first event %q", e.Name)
	}
	return string(e.Data), conn
}

// legacyEcho posts a 2024-11-05 tools/call echo carrying size bytes of
// text and returns the status.
func legacyEcho(t *testing.T, s *httptransport.TestServer, endpoint string, id, size int) int {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":"%s"}}}`, id, strings.Repeat("x", size))
	resp, _ := s.DoURL("POST", s.HTTPServer.URL+endpoint, http.Header{"Content-Type": {"application/json"}}, body)
	return resp.StatusCode
}

// fillStalledStream posts big echo calls to a stalled 2024-11-05 stream
// until a write to it blocks (its socket buffers are full).
func fillStalledStream(t *testing.T, s *httptransport.TestServer, endpoint string) int {
	t.Helper()
	// Writes blocked on another test's stalled client end with its
	// connection; wait for them, so that the one seen below is this one's.
	for deadline := time.Now().Add(10 * time.Second); httptransport.GoroutinesIn("(*ParkedWriter).Write")+httptransport.GoroutinesIn("(*Stream).SendRaw") > 0; {
		if time.Now().After(deadline) {
			t.Fatal("writes of an earlier test still blocked")
		}
		time.Sleep(20 * time.Millisecond)
	}
	id := 1
	for deadline := time.Now().Add(20 * time.Second); ; id++ {
		if time.Now().After(deadline) {
			t.Fatal("the stalled stream never blocked a write")
		}
		if st := legacyEcho(t, s, endpoint, id, 512<<10); st != http.StatusAccepted {
			t.Fatalf("big echo %d: %d", id, st)
		}
		time.Sleep(20 * time.Millisecond)
		if httptransport.GoroutinesIn("(*ParkedWriter).Write") == 0 {
			continue
		}
		// A write under way may still fit the socket's send buffer: it is
		// blocked when it is still there a while later.
		time.Sleep(300 * time.Millisecond)
		if httptransport.GoroutinesIn("(*ParkedWriter).Write") > 0 {
			return id
		}
	}
}

// TestLegacyQuotaCountsQueuedAnswers: MaxCallsPerPrincipal bounds what one
// principal has in flight, answers waiting to go out included. A 2024-11-05
// client that stops reading its event stream made the server hold any
// number of calls' answers (a goroutine and the encoded answer each), every
// POST getting 202: a call's place was given back before its answer was
// relayed to the stream, where the relay waited, for up to WriteTimeout per
// blocked write, on the stream's lock. Now the place is held until the
// answer is written, and POSTs past the bound get 429.
func TestLegacyQuotaCountsQueuedAnswers(t *testing.T) {
	const quota = 4
	s := httptransport.NewTestServer(t, &httptransport.Options{MaxCallsPerPrincipal: quota, WriteTimeout: 20 * time.Second})
	endpoint, conn := stalledLegacyStream(t, s)
	defer conn.Close() // lets the blocked write fail, so everything unwinds
	fillStalledStream(t, s, endpoint)

	const posts = 40
	accepted := 0
	for i := 0; i < posts; i++ {
		if legacyEcho(t, s, endpoint, 1000+i, 256<<10) == http.StatusAccepted {
			accepted++
		}
	}
	time.Sleep(300 * time.Millisecond)
	pending := httptransport.GoroutinesIn("(*Stream).SendRaw")
	t.Logf("MaxCallsPerPrincipal=%d: %d of %d POSTs accepted, %d answers (256 KiB each) held in goroutines waiting on the stalled stream",
		quota, accepted, posts, pending)
	if accepted == posts {
		t.Errorf("all %d POSTs accepted while their answers could not go out: none refused with 429", posts)
	}
	if pending > quota+1 {
		t.Errorf("%d answers pending on one stalled stream, MaxCallsPerPrincipal=%d: the quota does not bound them", pending, quota)
	}
}

// TestShutdownDeadlineEndsStalledStream: Handler.Shutdown(ctx) returns by
// ctx's deadline. With a held stream whose client stopped reading and a
// write to it blocked, Shutdown waited for the stream's lock (endParked ->
// detachIf; closeStreams -> cut) until the blocked write timed out
// (WriteTimeout, 20 s here), whatever ctx said.
func TestShutdownDeadlineEndsStalledStream(t *testing.T) {
	s := httptransport.NewTestServer(t, &httptransport.Options{WriteTimeout: 20 * time.Second})
	endpoint, conn := stalledLegacyStream(t, s)
	defer conn.Close()
	fillStalledStream(t, s, endpoint)

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- s.Handler.Shutdown(ctx) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown past its deadline: %v", err)
		}
	case <-time.After(6 * time.Second):
		t.Errorf("Shutdown with a 1s deadline still running after %v (held by a write to a stalled stream, bounded only by WriteTimeout=20s)", time.Since(start))
		conn.Close() // the write fails, Shutdown goes on
		<-done
		t.Logf("Shutdown returned %v after the client's connection closed", time.Since(start))
	}
}

// slowCloseStore is a shared SessionStore whose Close takes a while (a
// remote store flushing and closing its client), and records when it is
// done.
type slowCloseStore struct {
	*httptransport.MemorySessionStore
	closed atomic.Bool
}

func (s *slowCloseStore) Close() error {
	time.Sleep(300 * time.Millisecond)
	s.closed.Store(true)
	return nil
}

// TestShutdownPastDeadlineClosesStoreFirst: a Shutdown whose deadline
// passes while a call runs ends the sessions here and closes the session
// store before it returns, so that the caller, told Shutdown is over, can
// close what the store uses (its client, its process). A version of the
// deadline fix returned at once and left both to a goroutine.
func TestShutdownPastDeadlineClosesStoreFirst(t *testing.T) {
	t.Parallel()
	store := &slowCloseStore{MemorySessionStore: httptransport.NewMemorySessionStore()}
	s := httptransport.NewTestServer(t, &httptransport.Options{Sessions: store})
	sid := s.Initialize(httptransport.Version20251125)

	callDone := make(chan struct{})
	go func() {
		defer close(callDone)
		req, _ := http.NewRequest("POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"text":"long"}}}`))
		req.Header = httptransport.SessionHeaders(sid, httptransport.Version20251125)
		if resp, err := s.Client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	select {
	case <-s.Engine.Started:
	case <-time.After(10 * time.Second):
		t.Fatal("slow call never started")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	err := s.Handler.Shutdown(ctx)
	closedAtReturn := store.closed.Load()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown: %v, want its deadline's error", err)
	}
	if !closedAtReturn {
		t.Errorf("Shutdown returned (%v) before the SessionStore's Close finished: session ends and Close go on in the background, after the caller was told Shutdown is over", err)
	}
	<-callDone
}

// delayAfterMessageConn stands for a server goroutine descheduled right
// after its write went out: a write carrying a 2024-11-05 "message" event
// returns a while after the bytes are on their way to the client.
type delayAfterMessageConn struct {
	net.Conn
}

func (c delayAfterMessageConn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	if bytes.Contains(b, []byte("event: message")) {
		time.Sleep(400 * time.Millisecond)
	}
	return n, err
}

type delayAfterMessageListener struct{ net.Listener }

func (l delayAfterMessageListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return delayAfterMessageConn{c}, nil
}

// TestLegacyOneCallAtATimeNeverRefused: MaxCallsPerPrincipal promises
// that a client making one call at a time is never refused. A 2024-11-05
// call keeps its place while its answer waits for the event stream
// (TestLegacyQuotaCountsQueuedAnswers), and gives it back as the answer's
// write begins: a version that gave it back after the write returned let
// the client have the answer, send its next call, and get 429.
func TestLegacyOneCallAtATimeNeverRefused(t *testing.T) {
	t.Parallel()
	h := httptransport.New(httptransport.NewTestEngine(), &httptransport.Options{MaxCallsPerPrincipal: 1})
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = delayAfterMessageListener{srv.Listener}
	srv.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
		srv.CloseClientConnections()
		srv.Close()
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, endpoint := httptransport.OpenLegacy(t, ctx, srv.URL+"/mcp", nil)
	post := func(id string) int {
		req, _ := http.NewRequest("POST", srv.URL+endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":`+id+`,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := post("1"); st != http.StatusAccepted {
		t.Fatalf("first call: %d", st)
	}
	if m := r.NextMessage(); m.ID.Raw() != "1" {
		t.Fatalf("first answer: id %s", m.ID.Raw())
	}
	// The client has its answer: it makes its next call, one at a time.
	if st := post("2"); st != http.StatusAccepted {
		t.Errorf("second call, sent after the first call's answer arrived: %d, want 202 (MaxCallsPerPrincipal=1: a client making one call at a time is never refused)", st)
	}
}

// TestLegacyCallHoldsPlaceUntilAnswer: a 2024-11-05 call's messages all
// travel on the session's event stream, and only its answer gives its
// MaxCallsPerPrincipal place back. A version released it with the first
// relayed message, so a tool that reported progress, or asked the client
// something, ran on without a place and a second call was accepted.
func TestLegacyCallHoldsPlaceUntilAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, call, first string
	}{
		// One progress notification, then it waits on the gate.
		{"progress", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":"p"}}}`, "notifications/progress"},
		// A sampling request, then it waits for the client's answer.
		{"server request", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample"}}`, "sampling/createMessage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := httptransport.NewTestEngine()
			e.Gate = make(chan struct{})
			s := httptransport.StartTestServer(t, e, &httptransport.Options{MaxCallsPerPrincipal: 1}, nil, false)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			r, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, nil)
			post := func(body string) int {
				t.Helper()
				resp, _ := s.DoURL("POST", s.HTTPServer.URL+endpoint, http.Header{"Content-Type": {"application/json"}}, body)
				return resp.StatusCode
			}
			if st := post(tc.call); st != http.StatusAccepted {
				t.Fatalf("first call: %d", st)
			}
			m := r.NextMessage()
			if m.Method != tc.first {
				t.Fatalf("first message %+v, want %s", m, tc.first)
			}
			st := post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
			close(e.Gate)
			if m.IsRequest() {
				post(`{"jsonrpc":"2.0","id":` + m.ID.Raw() + `,"result":{}}`)
			}
			if st != http.StatusTooManyRequests {
				t.Errorf("second call while the first (which sent %s) runs: %d, want 429", tc.first, st)
			}
		})
	}
}
