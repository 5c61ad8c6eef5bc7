package httptransport

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/identity"
)

// Recorder is an Observer that keeps what it is told. It puts an identity
// in the contexts it returns, so that a test sees the engine serve with
// them.
type Recorder struct {
	Mu       sync.Mutex
	Calls    []CallInfo
	Outcomes []CallOutcome
	Events   []Event
}

func (r *Recorder) StartCall(ctx context.Context, call *CallInfo) (context.Context, func(CallOutcome)) {
	r.Mu.Lock()
	r.Calls = append(r.Calls, *call)
	r.Mu.Unlock()
	return identity.NewContext(ctx, &identity.Info{Subject: "observed"}), func(out CallOutcome) {
		r.Mu.Lock()
		r.Outcomes = append(r.Outcomes, out)
		r.Mu.Unlock()
	}
}

func (r *Recorder) Observe(_ context.Context, e Event) {
	r.Mu.Lock()
	r.Events = append(r.Events, e)
	r.Mu.Unlock()
}

// Count returns how many events match e's kind and the fields e sets.
func (r *Recorder) Count(e Event) int {
	r.Mu.Lock()
	defer r.Mu.Unlock()
	n := 0
	for _, got := range r.Events {
		if got.Kind == e.Kind && (e.Stream == "" || got.Stream == e.Stream) && (e.Status == 0 || got.Status == e.Status) &&
			(e.Reason == "" || got.Reason == e.Reason) && (e.SessionID == "" || got.SessionID == e.SessionID) {
			n++
		}
	}
	return n
}

func (r *Recorder) WaitCount(t *testing.T, e Event, want int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.Count(e) != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d events like %+v, want %d", r.Count(e), e, want)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNoObserverNoWrap: without an Observer the engine gets the request's
// own context (nothing wraps it) and the handler carries none.
func TestNoObserverNoWrap(t *testing.T) {
	t.Parallel()
	h := New(NewTestEngine(), nil)
	srv := httptest.NewServer(h)
	defer func() {
		_ = h.Shutdown(context.Background())
		srv.Close()
	}()
	s := &TestServer{T: t, Handler: h, URL: srv.URL, Client: srv.Client()}
	hd := ModernHeaders("tools/call")
	hd.Set("Mcp-Name", "echo")
	_, body := s.Do(http.MethodPost, hd, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},`+Meta+`}}`)
	if !strings.Contains(body, `"who":""`) {
		t.Errorf("echo without an observer: %s", body)
	}
	if h.cfg.observer != nil || h.ctx.Value(observerKey{}) != nil {
		t.Error("a handler without an Observer carries one")
	}
}

// withTestObserver gives opts a pass-through Observer when
// MCPMOUNT_TEST_OBSERVER is set and opts has none, so that the whole suite
// can run with the observation seam in the way of every request (its
// writer wrapper, its contexts): scripts/ci.d/otelmcp.sh does.
func withTestObserver(opts *Options) *Options {
	if os.Getenv("MCPMOUNT_TEST_OBSERVER") == "" || (opts != nil && opts.Observer != nil) {
		return opts
	}
	o := Options{}
	if opts != nil {
		o = *opts
	}
	o.Observer = passObserver{}
	return &o
}

// passObserver observes nothing, and wraps each call's context, as an
// observer starting a span would.
type passObserver struct{}

type passKey struct{}

func (passObserver) StartCall(ctx context.Context, call *CallInfo) (context.Context, func(CallOutcome)) {
	return context.WithValue(ctx, passKey{}, call.Method), func(CallOutcome) {}
}

func (passObserver) Observe(context.Context, Event) {}

// TestMemoryEventStoreOnEvict: OnEvict is called once for each event the
// store's bound evicts.
func TestMemoryEventStoreOnEvict(t *testing.T) {
	t.Parallel()
	evicted := 0
	m := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytesPerSession: 3 * (100 + eventOverhead), OnEvict: func() { evicted++ }})
	data := []byte(strings.Repeat("x", 100))
	for i := range 5 {
		if err := m.Append(context.Background(), "s", "st", i, data); err != nil {
			t.Fatal(err)
		}
	}
	if evicted != 2 {
		t.Errorf("OnEvict called %d times, want 2 (5 events, room for 3)", evicted)
	}
}

// TestObserverRelayFailures: a message another instance should get, whose
// publish fails, is reported.
func TestObserverRelayFailures(t *testing.T) {
	t.Parallel()
	rec := &Recorder{}
	a, b := Pair(t, Options{Sessions: failingRelayStore{NewMemorySessionStore()}, Observer: rec, Logger: quietLogger()})
	sid := a.Initialize(Version20251125)
	elsewhere := `{"jsonrpc":"2.0","id":"mcpmount-` + liveOf(t, a, sid).tag + `-99","result":{}}`
	if resp, body := b.Do(http.MethodPost, SessionHeaders(sid, Version20251125), elsewhere); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("answer for A POSTed to B: %d %s", resp.StatusCode, body)
	}
	if got := rec.Count(Event{Kind: EventRelayFailed, SessionID: sid}); got == 0 {
		t.Error("the failed publish was not reported")
	}
}

// TestEvictHook: the default event store reports its evictions to the
// Observer; without one it gets no options at all.
func TestEvictHook(t *testing.T) {
	t.Parallel()
	if evictHook(nil) != nil {
		t.Error("options for the event store without an Observer")
	}
	rec := &Recorder{}
	evictHook(rec).OnEvict()
	if got := rec.Count(Event{Kind: EventEvicted}); got != 1 {
		t.Errorf("%d evictions reported, want 1", got)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// dropOnOpen is an engine whose sessions report a dropped message as they
// open, with the session's context, as an engine's queue outside any call
// would (adapters/gosdk: a full outbox).
type dropOnOpen struct{ *TestEngine }

func (e dropOnOpen) OpenSession(ctx context.Context, sess *Session, out Sender) error {
	ReportDropped(ctx, "outbox_full")
	return e.TestEngine.OpenSession(ctx, sess, out)
}

// TestObserverSessionDrops: ReportDropped with a session's context, outside
// any call, reaches the Observer too.
func TestObserverSessionDrops(t *testing.T) {
	t.Parallel()
	rec := &Recorder{}
	s := StartTestServer(t, NewTestEngine(), &Options{Observer: rec}, nil, false)
	s.Handler.engine = dropOnOpen{s.Engine}
	s.Initialize(Version20251125)
	rec.WaitCount(t, Event{Kind: EventDropped, Reason: "outbox_full"}, 1)
}
