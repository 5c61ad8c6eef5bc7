package httptransport_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestPriming: 2025-11-25 SSE streams start with a priming event (an id and
// empty data, with retry when configured); 2025-06-18 ones do not.
func TestPriming(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{RetryInterval: 1500 * time.Millisecond})
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":1},"_meta":{"progressToken":1}}}`
	sid := s.Initialize(httptransport.Version20251125)
	_, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), call)
	evs := httptransport.Events(t, body)
	if len(evs) == 0 || !evs[0].HasID || len(evs[0].Data) != 0 || evs[0].Retry != 1500*time.Millisecond {
		t.Fatalf("first event %+v; body %q", evs, body)
	}
	ids := map[string]bool{}
	for _, e := range evs {
		if e.HasID {
			if ids[e.ID] {
				t.Errorf("duplicate event id %s", e.ID)
			}
			ids[e.ID] = true
		}
	}
	sid2 := s.Initialize(httptransport.Version20250618)
	_, body = s.Do("POST", httptransport.SessionHeaders(sid2, httptransport.Version20250618), call)
	for _, e := range httptransport.Events(t, body) {
		if !e.IsComment {
			if len(e.Data) == 0 {
				t.Errorf("2025-06-18 stream has a priming event %+v", e)
			}
			break
		}
	}
}

// TestShutdownDrains: Shutdown waits for calls in flight and ends GET
// streams; later requests get 503.
func TestShutdownDrains(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	gate := make(chan struct{})
	s.Engine.Gate = gate
	sid := s.Initialize(httptransport.Version20251125)
	h := httptransport.GetHeaders(sid, httptransport.Version20251125)
	get := s.Open(context.Background(), "GET", h, "")
	post := s.Open(context.Background(), "POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":1}}}`)
	r := httptransport.NewSSEReader(t, post.Body)
	if m := r.NextMessage(); m.Method != "notifications/progress" {
		t.Fatalf("got %+v", m)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shut := make(chan error)
	go func() { shut <- s.Handler.Shutdown(ctx) }()
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned before the call finished: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	gate <- struct{}{}
	r.NextMessage() // progress 2
	if final := r.NextMessage(); final.ID.Raw() != "1" || !strings.Contains(string(final.Result), `"text":"2"`) {
		t.Errorf("drained call answered %s", final.Result)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	buf := make([]byte, 64)
	for {
		if _, err := get.Body.Read(buf); err != nil {
			break // the GET stream ended
		}
	}
	if resp, _ := s.Do("POST", httptransport.ModernHeaders("server/discover"), `{}`); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("after Shutdown: %d", resp.StatusCode)
	}
}

// TestWriteTimeoutDoesNotKillStreams: a server WriteTimeout shorter than
// the stream's life does not cut it, on the handler's goroutine or parked.
func TestWriteTimeoutDoesNotKillStreams(t *testing.T) {
	t.Parallel()
	for _, hold := range []bool{false, true} {
		t.Run(map[bool]string{false: "blocking", true: "parked"}[hold], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testWriteTimeoutKeepsStream(t, hold) })
		})
	}
}

// testWriteTimeoutKeepsStream is TestWriteTimeoutDoesNotKillStreams for
// an engine that blocks, or holds, in a synctest bubble.
func testWriteTimeoutKeepsStream(t *testing.T, hold bool) {
	e := httptransport.NewTestEngine()
	e.Hold = hold
	h := httptransport.New(e, &httptransport.Options{KeepAlive: 10 * time.Millisecond})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.WriteTimeout = 50 * time.Millisecond
	new(testutil.MemNet).Serve(srv, false)
	defer srv.Close()
	defer h.Shutdown(context.Background())
	s := &httptransport.TestServer{T: t, Handler: h, Engine: e, URL: srv.URL, HTTPServer: srv, Client: srv.Client()}
	resp := s.Open(context.Background(), "POST", httptransport.ModernHeaders("subscriptions/listen"), `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+httptransport.Meta+`}}`)
	r := httptransport.NewSSEReader(t, resp.Body)
	r.NextMessage()
	time.Sleep(150 * time.Millisecond)
	s.Engine.Broadcast()
	if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
		t.Fatalf("got %s", m.Method)
	}
}

// TestShutdownStalledEventStore: an event store that stops answering (its
// Append holds a stream) neither keeps Shutdown past its deadline, which it
// reports, nor holds the stream for longer than the store's time bound.
func TestShutdownStalledEventStore(t *testing.T) {
	t.Parallel()
	ev := &httptransport.StallingEvents{MemoryEventStore: httptransport.NewMemoryEventStore(nil), Entered: make(chan struct{}, 1)}
	s := httptransport.NewTestServer(t, &httptransport.Options{Events: ev})
	s.Initialize(httptransport.Version20251125)
	go s.Engine.Broadcast() // a session-level message: stored, under the stream's lock
	<-ev.Entered
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res := make(chan error, 1)
	go func() { res <- s.Handler.Shutdown(ctx) }()
	select {
	case err := <-res:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Shutdown past its deadline returned %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Shutdown with a 200 ms deadline still blocked after 3 s")
	}
}
