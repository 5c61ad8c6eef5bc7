package httptransport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/internal/testutil"
)

// Pair starts two instances sharing one SessionStore (opts.Sessions, or a
// new MemorySessionStore) and opts' other settings, as behind a load
// balancer.
func Pair(t *testing.T, opts Options) (a, b *TestServer) {
	t.Helper()
	return PairOn(t, nil, opts)
}

// PairOn is Pair on mn (for a test in a synctest bubble), or on loopback
// sockets if mn is nil.
func PairOn(t *testing.T, mn *testutil.MemNet, opts Options) (a, b *TestServer) {
	t.Helper()
	if opts.Sessions == nil {
		opts.Sessions = NewMemorySessionStore()
	}
	oa, ob := opts, opts
	return startTestServer(t, mn, NewTestEngine(), &oa, nil, false), startTestServer(t, mn, NewTestEngine(), &ob, nil, false)
}

const ListTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

// standaloneOf is the id of the standalone stream of s's copy of session sid.
func standaloneOf(t *testing.T, s *TestServer, sid string) string {
	t.Helper()
	return liveOf(t, s, sid).standalone.ID() // set when the copy is made
}

// TestSharedStoreHeldStream: a session whose only activity is a GET
// stream held on one instance keeps its record, so the other instance
// still serves it after several idle timeouts; once nothing holds it, it
// expires everywhere and its events are forgotten.
func TestSharedStoreHeldStream(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		events := NewMemoryEventStore(nil)
		a, b := PairOn(t, mn, Options{SessionIdleTimeout: 100 * time.Millisecond, Events: events})
		sid := a.Initialize(Version20251125)
		aStandalone := standaloneOf(t, a, sid)
		ctx, cancel := context.WithCancel(context.Background())
		h := GetHeaders(sid, Version20251125)
		get := a.Open(ctx, "GET", h, "")
		if get.StatusCode != 200 {
			t.Fatalf("GET on A: %d", get.StatusCode)
		}
		r := NewSSEReader(t, get.Body)
		a.Engine.Broadcast() // an event stored for the session
		if e := r.Next(); e.ID == "" {
			t.Fatalf("stored event without id: %+v", e)
		}
		time.Sleep(500 * time.Millisecond)
		if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 200 {
			t.Fatalf("B while A holds the GET stream: %d %s", resp.StatusCode, body)
		}
		cancel()
		get.Body.Close()
		deadline := time.Now().Add(5 * time.Second)
		for {
			resp, _ := a.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
			if resp.StatusCode == 404 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the session never expired once nothing held it")
			}
			time.Sleep(200 * time.Millisecond)
		}
		if resp, _ := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 404 {
			t.Errorf("B after expiry: %d", resp.StatusCode)
		}
		for time.Now().Before(deadline) {
			if _, err := events.After(context.Background(), sid, aStandalone, 0); errors.Is(err, ErrEventsGone) {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Error("the expired session's events were never forgotten")
	})
}

// TestSharedStoreEventIDs: the GET streams of one session on two
// instances sharing an EventStore never use the same event id (spec
// 2025-11-25 basic/transports#resumability-and-redelivery), and each
// instance resumes its own.
func TestSharedStoreEventIDs(t *testing.T) {
	t.Parallel()
	events := NewMemoryEventStore(nil)
	a, b := Pair(t, Options{Events: events})
	sid := a.Initialize(Version20251125)
	seen := map[string]string{}
	for name, s := range map[string]*TestServer{"A": a, "B": b} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		h := GetHeaders(sid, Version20251125)
		resp := s.Open(ctx, "GET", h, "")
		if resp.StatusCode != 200 {
			t.Fatalf("GET on %s: %d", name, resp.StatusCode)
		}
		r := NewSSEReader(t, resp.Body)
		s.Engine.Broadcast()
		e := r.Next()
		if other, dup := seen[e.ID]; dup || !strings.HasPrefix(e.ID, s.Handler.tag) {
			t.Errorf("%s's event id %q (also used by %q; tag %q)", name, e.ID, other, s.Handler.tag)
		}
		seen[e.ID] = name
		cancel()
		resp.Body.Close()
	}
	// Resuming names the stream and so the instance that holds it.
	for id, name := range seen {
		s := map[string]*TestServer{"A": a, "B": b}[name]
		h := GetHeaders(sid, Version20251125)
		h.Set("Last-Event-ID", id)
		deadline := time.Now().Add(5 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			resp := s.Open(ctx, "GET", h, "")
			code := resp.StatusCode
			cancel()
			resp.Body.Close()
			if code == 200 {
				break
			}
			if code != http.StatusConflict || time.Now().After(deadline) {
				t.Errorf("resuming %s on %s: %d", id, name, code)
				break
			}
			time.Sleep(20 * time.Millisecond) // the dropped GET is still being let go
		}
	}
}

// TestSharedStoreGoneForgetsEvents: a request that finds the session's
// record gone (deleted or expired in the store) ends the session here and
// forgets its events at once, without waiting for the janitor.
func TestSharedStoreGoneForgetsEvents(t *testing.T) {
	t.Parallel()
	events := NewMemoryEventStore(nil)
	store := NewMemorySessionStore()
	a := StartTestServer(t, NewTestEngine(), &Options{Sessions: store, Events: events, SessionIdleTimeout: time.Hour}, nil, false)
	sid := a.Initialize(Version20251125)
	aStandalone := standaloneOf(t, a, sid)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := GetHeaders(sid, Version20251125)
	r := NewSSEReader(t, a.Open(ctx, "GET", h, "").Body)
	a.Engine.Broadcast()
	if e := r.Next(); e.ID == "" {
		t.Fatalf("event without id: %+v", e)
	}
	if _, err := events.After(ctx, sid, aStandalone, 0); err != nil {
		t.Fatalf("the event was not stored: %v", err)
	}
	if err := store.Delete(ctx, sid); err != nil { // as another instance's DELETE would
		t.Fatal(err)
	}
	if resp, body := a.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 404 {
		t.Fatalf("after the record is gone: %d %s", resp.StatusCode, body)
	}
	if _, err := events.After(ctx, sid, aStandalone, 0); !errors.Is(err, ErrEventsGone) {
		t.Errorf("the session's events outlived it: %v", err)
	}
}

// TestSharedStoreLongCallKeepsRecord: a shared session's record lives on
// past the end of a call that outlasted SessionIdleTimeout, for at least
// 7/8 of the timeout (the end of a call touches the record unless it was
// touched within the last eighth). In a synctest bubble: on a loaded
// machine, a test reading the store more than 7/8 of the timeout after
// the call's end found the record expired and swept (and took its zero
// expiry for a time).
func TestSharedStoreLongCallKeepsRecord(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const idle = time.Second
		a, b := PairOn(t, &testutil.MemNet{}, Options{SessionIdleTimeout: idle})
		a.Engine.Gate = make(chan struct{})
		sid := a.Initialize(Version20251125)
		done := make(chan int)
		go func() {
			resp, _ := a.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"remember","arguments":{"text":"r"}}}`)
			done <- resp.StatusCode
		}()
		<-a.Engine.Started
		time.Sleep(2 * idle)
		ended := time.Now() // the call ends after this
		close(a.Engine.Gate)
		if code := <-done; code != 200 {
			t.Fatalf("the long call: %d", code)
		}
		// The record's life runs from the call's end, not from the
		// janitor's last round (up to a quarter of idle before).
		store := a.Handler.sessions.(*MemorySessionStore)
		store.mu.Lock()
		rec, ok := store.records[sid]
		store.mu.Unlock()
		if min := ended.Add(idle * 7 / 8); !ok || rec.expires.Before(min) {
			t.Errorf("after a long call the record expires %v after the call's end (held: %v), want at least %v", rec.expires.Sub(ended), ok, idle*7/8)
		}
		if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 200 {
			t.Errorf("B after a long call ended (idle timeout %v): %d %s", idle, resp.StatusCode, body)
		}
	})
}

// TestSharedStoreResumeElsewhere: a client whose GET stream dropped on
// one instance resumes on another with a shared EventStore: it gets the
// events it missed, then the new instance's live ones.
func TestSharedStoreResumeElsewhere(t *testing.T) {
	t.Parallel()
	a, b := Pair(t, Options{Events: NewMemoryEventStore(nil)})
	sid := a.Initialize(Version20251125)
	aStandalone := standaloneOf(t, a, sid)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := GetHeaders(sid, Version20251125)
	actx, drop := context.WithCancel(ctx)
	resp := a.Open(actx, "GET", h, "")
	a.Engine.Broadcast()
	first := NewSSEReader(t, resp.Body).Next()
	drop()
	resp.Body.Close()
	Eventually(t, "A's GET stream is let go", func() bool {
		a.Engine.Broadcast() // missed by the client, kept in the store
		_, err := a.Handler.cfg.events.After(ctx, sid, aStandalone, 1)
		return err == nil
	})
	h.Set("Last-Event-ID", first.ID)
	r := NewSSEReader(t, b.Open(ctx, "GET", h, "").Body)
	missed := r.Next()
	if !strings.HasPrefix(missed.ID, aStandalone+"_") || missed.ID == first.ID || !strings.Contains(string(missed.Data), "list_changed") {
		t.Errorf("first event on B: %+v, want A's missed event after %s", missed, first.ID)
	}
	for e := missed; strings.HasPrefix(e.ID, a.Handler.tag); {
		b.Engine.Broadcast()
		if e = r.Next(); strings.HasPrefix(e.ID, standaloneOf(t, b, sid)+"_") {
			return // B's live events follow
		}
	}
	t.Error("B's live events never came")
}

// slowStore answers Touch after a delay, or with the context's error if
// that ends first, and counts the Touches that succeeded.
type slowStore struct {
	*MemorySessionStore
	delay   time.Duration
	touched atomic.Int32
}

func (s *slowStore) Touch(ctx context.Context, id string, ttl time.Duration) error {
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return ctx.Err()
	}
	s.touched.Add(1)
	return s.MemorySessionStore.Touch(ctx, id, ttl)
}

// TestJanitorStoreBoundPerCall: the janitor's store work for each session
// has its own time bound, so a slow store delays a round but never leaves the
// later sessions of a round untouched (their records would lapse).
func TestJanitorStoreBoundPerCall(t *testing.T) {
	t.Parallel()
	store := &slowStore{MemorySessionStore: NewMemorySessionStore(), delay: 30 * time.Millisecond}
	h := New(NewTestEngine(), &Options{Sessions: store, SessionIdleTimeout: time.Hour})
	defer h.Shutdown(context.Background())
	h.cfg.storeTimeout = 100 * time.Millisecond // a round of 10 sessions takes 300 ms
	ctx := context.Background()
	for range 10 {
		ls := h.newLiveSession(&Session{ID: newSessionID(), Version: Version20251125}, "", "", nil)
		if err := store.Put(ctx, &SessionRecord{ID: ls.id, Version: ls.sess.Version}, time.Hour); err != nil {
			t.Fatal(err)
		}
		ls.active = 1 // a call in flight
		h.mu.Lock()
		h.live[ls.id] = ls
		h.mu.Unlock()
	}
	h.expire(ctx, time.Now())
	if n := store.touched.Load(); n != 10 {
		t.Errorf("%d of 10 in-use sessions touched in one round", n)
	}
}

// TestSharedStoreStateBeforeAnswer: state the engine changes in a call is
// in the shared store before the call's answer goes out, so an instance the
// client reaches next, right after the answer, serves the session with it.
func TestSharedStoreStateBeforeAnswer(t *testing.T) {
	t.Parallel()
	a, b := Pair(t, Options{SessionIdleTimeout: -1})
	a.Engine.Gate = make(chan struct{})
	close(a.Engine.Gate)
	for i := range 100 {
		sid := a.Initialize(Version20251125)
		resp, body := a.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"remember","arguments":{"text":"r"}}}`)
		<-a.Engine.Started
		if resp.StatusCode != 200 {
			t.Fatalf("remember: %d %s", resp.StatusCode, body)
		}
		if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 200 {
			t.Fatalf("B: %d %s", resp.StatusCode, body)
		}
		b.Handler.mu.Lock()
		ls := b.Handler.live[sid]
		b.Handler.mu.Unlock()
		if ls == nil || !strings.Contains(string(ls.sess.State()), "remembered") {
			t.Fatalf("round %d: B, reached right after the answer, serves the session without the state the call set", i)
		}
	}
}

// TestSharedStoreLocalEventsForgotten: with a shared session store and
// each instance's own (default) event store, an instance that drops its
// idle copy of a session still alive elsewhere forgets the session's
// events too: no one could resume those streams there any more, and
// nothing else would ever remove them.
func TestSharedStoreLocalEventsForgotten(t *testing.T) {
	t.Parallel()
	a, b := Pair(t, Options{SessionIdleTimeout: 200 * time.Millisecond})
	sid := a.Initialize(Version20251125)
	h := GetHeaders(sid, Version20251125)
	for i := range 3 {
		if resp, body := a.Do("POST", h, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i)); resp.StatusCode != 200 {
			t.Fatalf("A: %d %s", resp.StatusCode, body)
		}
	}
	held := func() bool {
		store := a.Handler.cfg.events.(*MemoryEventStore)
		store.mu.Lock()
		defer store.mu.Unlock()
		return store.sessions[sid] != nil
	}
	if !held() {
		t.Fatal("A stored no events of the session's SSE answers")
	}
	id := 100
	Eventually(t, "A drops its idle copy while B serves the session", func() bool {
		id++
		if resp, body := b.Do("POST", h, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id)); resp.StatusCode != 200 {
			t.Fatalf("B: %d %s", resp.StatusCode, body)
		}
		a.Handler.mu.Lock()
		defer a.Handler.mu.Unlock()
		return a.Handler.live[sid] == nil
	})
	if held() {
		t.Error("A dropped its copy of the session but keeps its events")
	}
}

// TestSharedEventsReadoptedSessionNewIDs: an instance that dropped its idle
// copy of a session and serves it again later (the client came back to it)
// gives the session's new streams ids it never used for the session: with
// a shared event store still holding the old streams' events, reused ids
// would mix old events into the new streams and their resumption.
func TestSharedEventsReadoptedSessionNewIDs(t *testing.T) {
	t.Parallel()
	a, b := Pair(t, Options{SessionIdleTimeout: 200 * time.Millisecond, Events: NewMemoryEventStore(nil)})
	sid := a.Initialize(Version20251125)
	h := GetHeaders(sid, Version20251125)
	streamsOf := func(body string) map[string]bool {
		ids := map[string]bool{}
		for _, e := range Events(t, body) {
			if stream, _, ok := parseEventID(e.ID); ok {
				ids[stream] = true
			}
		}
		return ids
	}
	used := map[string]bool{}
	for i := range 3 {
		resp, body := a.Do("POST", h, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i))
		if resp.StatusCode != 200 {
			t.Fatalf("A: %d %s", resp.StatusCode, body)
		}
		for id := range streamsOf(body) {
			used[id] = true
		}
	}
	if len(used) != 3 {
		t.Fatalf("A's first streams: %v", used)
	}
	id := 100
	Eventually(t, "A drops its idle copy while B serves the session", func() bool {
		id++
		b.Do("POST", h, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
		a.Handler.mu.Lock()
		defer a.Handler.mu.Unlock()
		return a.Handler.live[sid] == nil
	})
	for i := range 3 {
		resp, body := a.Do("POST", h, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 200+i))
		if resp.StatusCode != 200 {
			t.Fatalf("A again: %d %s", resp.StatusCode, body)
		}
		for id := range streamsOf(body) {
			if used[id] {
				t.Errorf("A serving the session again reuses stream id %s", id)
			}
		}
	}
}

// TestStreamEndStoreBound: the store call made when a GET stream ends
// (touching the session's record) has the store's time bound, so a store
// that stops answering does not keep Shutdown waiting for it.
func TestStreamEndStoreBound(t *testing.T) {
	t.Parallel()
	store := NewFaultStore()
	s := StartTestServer(t, NewTestEngine(), &Options{Sessions: store, SessionIdleTimeout: time.Hour}, nil, false)
	s.Handler.cfg.storeTimeout = 100 * time.Millisecond
	sid := s.Initialize(Version20251125)
	h := GetHeaders(sid, Version20251125)
	ctx, cancel := context.WithCancel(context.Background())
	resp := s.Open(ctx, "GET", h, "")
	if resp.StatusCode != 200 {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
	store.HangTouch.Store(true)
	cancel()
	resp.Body.Close()
	time.Sleep(50 * time.Millisecond) // the stream's end reaches the server
	sctx, scancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer scancel()
	if err := s.Handler.Shutdown(sctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}
