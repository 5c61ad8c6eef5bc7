package httptransport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestDeleteStoreFailure: spec 2025-11-25 basic/transports#session-management, "After a successful DELETE,
// requests carrying that id -> 404". A DELETE the shared store fails to
// carry out gets 503 (it once got 200 while the record stayed, and every
// instance served the session again), and leaves the session as it was.
func TestDeleteStoreFailure(t *testing.T) {
	store := newFaultStore()
	store.failDelete.Store(true)
	s := startServer(t, newTestEngine(), &Options{Sessions: store}, nil, false)
	sid := s.initialize(Version20251125)
	resp, body := s.do("DELETE", sessionHeaders(sid, Version20251125), "")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("DELETE with the store failing: %d %s (Retry-After %q), want 503 with Retry-After", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if resp, body := s.do("POST", sessionHeaders(sid, Version20251125), listTools); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after a failed DELETE: %d %s, want it served", resp.StatusCode, body)
	}
}

// hangingCloseEvents is an EventStore whose SessionClosed blocks until its
// context ends or the test releases it (a remote store that stopped
// answering).
type hangingCloseEvents struct {
	*MemoryEventStore
	release chan struct{}
	entered atomic.Int32
}

func (e *hangingCloseEvents) SessionClosed(ctx context.Context, session string) error {
	e.entered.Add(1)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-e.release:
	}
	return e.MemoryEventStore.SessionClosed(ctx, session)
}

// TestJanitorHungEventStore: store work outside a request is bounded, so
// that a store that hangs holds nothing for long (record.go). With a
// user's EventStore and the handler's own SessionStore, ending one idle
// session once waited on SessionClosed forever: the janitor stopped, and
// no other session ever expired.
func TestJanitorHungEventStore(t *testing.T) {
	ev := &hangingCloseEvents{MemoryEventStore: NewMemoryEventStore(nil), release: make(chan struct{})}
	s := startServer(t, newTestEngine(), &Options{Events: ev, SessionIdleTimeout: 100 * time.Millisecond}, nil, false)
	t.Cleanup(func() { close(ev.release) }) // runs before the server's Shutdown
	s.h.cfg.storeTimeout = 100 * time.Millisecond
	s.initialize(Version20251125)
	s.initialize(Version20251125)
	time.Sleep(2 * time.Second) // 20 idle timeouts
	s.h.mu.Lock()
	n := len(s.h.live)
	s.h.mu.Unlock()
	if n != 0 {
		t.Errorf("%d of 2 idle sessions still live after 20 idle timeouts (SessionClosed entered %d times): the janitor is stuck on a hung EventStore", n, ev.entered.Load())
	}
}

// TestGoneSessionHungEventStore: a request for a shared session whose
// record is gone (deleted or expired elsewhere) gets its 404 within the
// store bound, although the EventStore's SessionClosed hangs (the handler
// once never returned, even after the client had left).
func TestGoneSessionHungEventStore(t *testing.T) {
	store := NewMemorySessionStore()
	ev := &hangingCloseEvents{MemoryEventStore: NewMemoryEventStore(nil), release: make(chan struct{})}
	s := startServer(t, newTestEngine(), &Options{Sessions: store, Events: ev, SessionIdleTimeout: time.Hour}, nil, false)
	t.Cleanup(func() { close(ev.release) })
	s.h.cfg.storeTimeout = 100 * time.Millisecond
	sid := s.initialize(Version20251125)
	_ = store.Delete(context.Background(), sid) // DELETE on another instance

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(listTools))
	for k, v := range sessionHeaders(sid, Version20251125) {
		req.Header[k] = v
	}
	done := make(chan int, 1)
	go func() {
		w := httptest.NewRecorder()
		s.h.ServeHTTP(w, req)
		done <- w.Code
	}()
	select {
	case code := <-done:
		if code != http.StatusNotFound {
			t.Errorf("gone session: %d, want 404", code)
		}
	case <-time.After(3 * time.Second):
		t.Errorf("the handler still runs 3 s after the client left (store bound 100 ms): SessionClosed entered %d times, unbounded and uncancellable", ev.entered.Load())
	}
}

// gatedGetStore is a shared SessionStore whose next Get, once armed,
// waits for release (a slow store round trip).
type gatedGetStore struct {
	*MemorySessionStore
	arm     atomic.Bool
	entered chan struct{}
	release chan struct{}
}

func (s *gatedGetStore) Get(ctx context.Context, id string) (*SessionRecord, error) {
	if s.arm.CompareAndSwap(true, false) {
		s.entered <- struct{}{}
		select {
		case <-s.release:
		case <-ctx.Done():
		}
	}
	return s.MemorySessionStore.Get(ctx, id)
}

// TestJanitorSparesSessionTakenUp: the janitor ends an idle session only
// if it is still idle at that moment: a call that began during the
// janitor's store round trip (a shared store) goes on. It was once
// cancelled by the expiry of the copy it ran on, against "Ends sessions
// with nothing in flight and no stream open".
func TestJanitorSparesSessionTakenUp(t *testing.T) {
	store := &gatedGetStore{MemorySessionStore: NewMemorySessionStore(), entered: make(chan struct{}, 1), release: make(chan struct{})}
	opts := Options{Sessions: store, SessionIdleTimeout: 300 * time.Millisecond}
	oa, ob := opts, opts
	a := startServer(t, newTestEngine(), &oa, nil, false)
	b := startServer(t, newTestEngine(), &ob, nil, false)
	var once sync.Once
	releaseGet := func() { once.Do(func() { close(store.release) }) }
	t.Cleanup(releaseGet)
	sid := a.initialize(Version20251125)
	// The client works with B meanwhile, which keeps the record alive.
	if resp, body := b.do("POST", sessionHeaders(sid, Version20251125), listTools); resp.StatusCode != 200 {
		t.Fatalf("B: %d %s", resp.StatusCode, body)
	}
	stopB := make(chan struct{})
	bDone := make(chan struct{})
	go func() {
		defer close(bDone)
		for {
			select {
			case <-stopB:
				return
			case <-time.After(40 * time.Millisecond):
			}
			b.do("POST", sessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
		}
	}()
	defer func() { close(stopB); <-bDone }()
	store.arm.Store(true)
	select {
	case <-store.entered: // A's janitor found its copy idle and asks the store
	case <-time.After(3 * time.Second):
		t.Fatal("A's janitor never checked the idle session")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", a.url, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"text":"busy"}}}`))
		for k, v := range sessionHeaders(sid, Version20251125) {
			req.Header[k] = v
		}
		if resp, err := a.client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-a.engine.started:
	case <-time.After(3 * time.Second):
		t.Fatal("the call never started on A")
	}
	releaseGet()
	select {
	case <-a.engine.cancelled:
		<-a.engine.sendErrs
		t.Fatal("a call in flight on A was cancelled by the idle expiry of A's copy of its session")
	case <-time.After(700 * time.Millisecond):
	}
	// The call is the client's to cancel.
	if resp, body := a.do("POST", sessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", resp.StatusCode, body)
	}
	<-a.engine.cancelled
	<-a.engine.sendErrs
}

// TestLastEventIDSigned: ids are "<stream>_<index>" with a decimal index
// as the server writes it; "+0" (which strconv.Atoi takes) is an id the
// server never issued, refused with 400 like any unknown id.
func TestLastEventIDSigned(t *testing.T) {
	s := newServer(t, nil)
	sid := s.initialize(Version20251125)
	s.engine.broadcast() // standalone event 1, stored
	h := getHeaders(sid, Version20251125)
	h.Set("Last-Event-ID", standaloneOf(t, s, sid)+"_+0")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp := s.open(ctx, "GET", h, "")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("Last-Event-ID %q (never issued) answered %d, want 400", h.Get("Last-Event-ID"), resp.StatusCode)
	}
}

// TestNewCallStreamRacesEnd: a call stream is set up completely before
// it is listed in its session, where a concurrent end (DELETE, expiry)
// cuts it (run with -race: newCallStream once wrote st.priming after).
func TestNewCallStreamRacesEnd(t *testing.T) {
	h := New(newTestEngine(), nil)
	defer h.Shutdown(context.Background())
	for range 20 {
		ls := h.newLiveSession(&Session{ID: newSessionID(), Version: Version20251125}, "", "", nil)
		st := h.newStream(httptest.NewRecorder(), acceptance{sse: true}, streamRole{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			ls.newCallStream(st)
		}()
		go func() {
			defer wg.Done()
			for {
				ls.mu.Lock()
				n := len(ls.streams)
				ls.mu.Unlock()
				if n > 0 {
					break
				}
			}
			ls.end(context.Background(), true)
		}()
		wg.Wait()
	}
}

// hangingAfterEvents is an EventStore whose After blocks until its context
// ends (a remote store that stopped answering).
type hangingAfterEvents struct {
	*MemoryEventStore
}

func (e *hangingAfterEvents) After(ctx context.Context, session, stream string, index int) ([][]byte, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestReplayHungEventStore: replaying a stream's events has the store's
// bound (Options.Events): a GET whose Last-Event-ID names a stream that is
// not live here (replayEnded) gets its answer although the store hangs (it
// once waited for as long as the client did).
func TestReplayHungEventStore(t *testing.T) {
	s := newServer(t, &Options{Events: &hangingAfterEvents{MemoryEventStore: NewMemoryEventStore(nil)}})
	s.h.cfg.storeTimeout = 100 * time.Millisecond
	sid := s.initialize(Version20251125)
	h := getHeaders(sid, Version20251125)
	h.Set("Last-Event-ID", s.h.tag+"ABCD9_1") // a call stream no longer live here
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.url, nil)
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a resuming GET waited %v on a hung EventStore.After (bound 100 ms): %v", d.Round(time.Millisecond), err)
	}
}

// TestRequestHungSessionStore: a request whose session must be read from a
// shared store that stopped answering gets 503 within the store bound, not
// when the client gives up.
func TestRequestHungSessionStore(t *testing.T) {
	store := newFaultStore()
	a := startServer(t, newTestEngine(), &Options{Sessions: store}, nil, false)
	b := startServer(t, newTestEngine(), &Options{Sessions: store}, nil, false)
	b.h.cfg.storeTimeout = 100 * time.Millisecond
	sid := a.initialize(Version20251125)
	store.hangGet.Store(true)
	defer store.hangGet.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp := b.open(ctx, "POST", sessionHeaders(sid, Version20251125), listTools)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("hung store: %d, want 503 within the store bound (100 ms)", resp.StatusCode)
	}
}
