package httptransport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

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
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		ev := &hangingCloseEvents{MemoryEventStore: NewMemoryEventStore(nil), release: make(chan struct{})}
		s := startTestServer(t, mn, NewTestEngine(), &Options{Events: ev, SessionIdleTimeout: 100 * time.Millisecond}, nil, false)
		t.Cleanup(func() { close(ev.release) }) // runs before the server's Shutdown
		s.Handler.cfg.storeTimeout = 100 * time.Millisecond
		s.Initialize(Version20251125)
		s.Initialize(Version20251125)
		time.Sleep(2 * time.Second) // 20 idle timeouts
		s.Handler.mu.Lock()
		n := len(s.Handler.live)
		s.Handler.mu.Unlock()
		if n != 0 {
			t.Errorf("%d of 2 idle sessions still live after 20 idle timeouts (SessionClosed entered %d times): the janitor is stuck on a hung EventStore", n, ev.entered.Load())
		}
	})
}

// TestGoneSessionHungEventStore: a request for a shared session whose
// record is gone (deleted or expired elsewhere) gets its 404 within the
// store bound, although the EventStore's SessionClosed hangs (the handler
// once never returned, even after the client had left).
func TestGoneSessionHungEventStore(t *testing.T) {
	t.Parallel()
	store := NewMemorySessionStore()
	ev := &hangingCloseEvents{MemoryEventStore: NewMemoryEventStore(nil), release: make(chan struct{})}
	s := StartTestServer(t, NewTestEngine(), &Options{Sessions: store, Events: ev, SessionIdleTimeout: time.Hour}, nil, false)
	t.Cleanup(func() { close(ev.release) })
	s.Handler.cfg.storeTimeout = 100 * time.Millisecond
	sid := s.Initialize(Version20251125)
	_ = store.Delete(context.Background(), sid) // DELETE on another instance

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req := httptest.NewRequestWithContext(ctx, "POST", "/mcp", strings.NewReader(ListTools))
	for k, v := range SessionHeaders(sid, Version20251125) {
		req.Header[k] = v
	}
	done := make(chan int, 1)
	go func() {
		w := httptest.NewRecorder()
		s.Handler.ServeHTTP(w, req)
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

// GatedGetStore is a shared SessionStore whose next Get, once armed,
// waits for release (a slow store round trip).
type GatedGetStore struct {
	*MemorySessionStore
	Arm     atomic.Bool
	Entered chan struct{}
	Release chan struct{}
}

func (s *GatedGetStore) Get(ctx context.Context, id string) (*SessionRecord, error) {
	if s.Arm.CompareAndSwap(true, false) {
		s.Entered <- struct{}{}
		select {
		case <-s.Release:
		case <-ctx.Done():
		}
	}
	return s.MemorySessionStore.Get(ctx, id)
}

// TestLastEventIDSigned: ids are "<stream>_<index>" with a decimal index
// as the server writes it; "+0" (which strconv.Atoi takes) is an id the
// server never issued, refused with 400 like any unknown id.
func TestLastEventIDSigned(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	s.Engine.Broadcast() // standalone event 1, stored
	h := GetHeaders(sid, Version20251125)
	h.Set("Last-Event-ID", standaloneOf(t, s, sid)+"_+0")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp := s.Open(ctx, "GET", h, "")
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("Last-Event-ID %q (never issued) answered %d, want 400", h.Get("Last-Event-ID"), resp.StatusCode)
	}
}

// TestNewCallStreamRacesEnd: a call stream is set up completely before
// it is listed in its session, where a concurrent end (DELETE, expiry)
// cuts it (run with -race: newCallStream once wrote st.priming after).
func TestNewCallStreamRacesEnd(t *testing.T) {
	t.Parallel()
	h := New(NewTestEngine(), nil)
	defer h.Shutdown(context.Background())
	for range 20 {
		ls := h.newLiveSession(&Session{ID: newSessionID(), Version: Version20251125}, "", "", nil)
		st := h.newStream(httptest.NewRecorder(), acceptance{sse: true}, output.Role{})
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
	t.Parallel()
	s := NewTestServer(t, &Options{Events: &hangingAfterEvents{MemoryEventStore: NewMemoryEventStore(nil)}})
	s.Handler.cfg.storeTimeout = 100 * time.Millisecond
	sid := s.Initialize(Version20251125)
	h := GetHeaders(sid, Version20251125)
	h.Set("Last-Event-ID", s.Handler.tag+"ABCD9_1") // a call stream no longer live here
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	start := time.Now()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL, nil)
	for k, v := range h {
		req.Header[k] = v
	}
	resp, err := s.Client.Do(req)
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
	t.Parallel()
	store := NewFaultStore()
	a := StartTestServer(t, NewTestEngine(), &Options{Sessions: store}, nil, false)
	b := StartTestServer(t, NewTestEngine(), &Options{Sessions: store}, nil, false)
	b.Handler.cfg.storeTimeout = 100 * time.Millisecond
	sid := a.Initialize(Version20251125)
	store.HangGet.Store(true)
	defer store.HangGet.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	resp := b.Open(ctx, "POST", SessionHeaders(sid, Version20251125), ListTools)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("hung store: %d, want 503 within the store bound (100 ms)", resp.StatusCode)
	}
}
