package httptransport

import (
	"context"
	"encoding/json"
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
	"github.com/mcpmount/mcpmount/jsonrpc"
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

// TestObserverWrapsCallContext: the engine serves a call with the context
// StartCall returned, and the outcome carries the answer and the status
// it goes out with.
func TestObserverWrapsCallContext(t *testing.T) {
	rec := &Recorder{}
	s := NewTestServer(t, &Options{Observer: rec})
	h := ModernHeaders("tools/call")
	h.Set("Mcp-Name", "echo")
	resp, body := s.Do(http.MethodPost, h, `{"jsonrpc":"2.0","id":"a1","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},`+Meta+`}}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"who":"observed"`) {
		t.Fatalf("echo: %d %s; want the identity the observer put in the call's context", resp.StatusCode, body)
	}
	resp, _ = s.Do(http.MethodPost, ModernHeaders("nosuch/method"), `{"jsonrpc":"2.0","id":2,"method":"nosuch/method","params":{`+Meta+`}}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown method: %d, want 404", resp.StatusCode)
	}
	rec.Mu.Lock()
	defer rec.Mu.Unlock()
	if len(rec.Calls) != 2 || len(rec.Outcomes) != 2 {
		t.Fatalf("%d calls, %d outcomes, want 2 of each", len(rec.Calls), len(rec.Outcomes))
	}
	c := rec.Calls[0]
	if c.Method != "tools/call" || c.ID.Raw() != `"a1"` || c.Transport != TransportModern || c.Version != Version20260728 ||
		c.SessionID != "" || !strings.HasPrefix(c.RemoteAddr, "127.0.0.1:") || c.Proto != "HTTP/1.1" || !json.Valid(c.Params) {
		t.Errorf("call info %+v", c)
	}
	if out := rec.Outcomes[0]; out.Status != http.StatusOK || out.Response == nil || out.Response.Error != nil || out.Cancelled {
		t.Errorf("echo outcome %+v", out)
	}
	if out := rec.Outcomes[1]; out.Status != http.StatusNotFound || out.Response.Error == nil || out.Response.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method outcome %+v, want 404 and -32601", out)
	}
}

// TestObserverSessionsStreamsRefusals: a 2025-era session's start and
// end, its GET stream, and refusals by status and reason.
func TestObserverSessionsStreamsRefusals(t *testing.T) {
	rec := &Recorder{}
	s := NewTestServer(t, &Options{Observer: rec})
	sid := s.Initialize(Version20251125)
	rec.WaitCount(t, Event{Kind: EventSessionOpened, SessionID: sid}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	get := s.Open(ctx, http.MethodGet, GetHeaders(sid, Version20251125), "")
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	rec.WaitCount(t, Event{Kind: EventStreamOpened, Stream: StreamGet}, 1)
	cancel()
	get.Body.Close()
	rec.WaitCount(t, Event{Kind: EventStreamClosed, Stream: StreamGet}, 1)

	if resp, _ := s.Do(http.MethodDelete, SessionHeaders(sid, Version20251125), ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	rec.WaitCount(t, Event{Kind: EventSessionClosed, SessionID: sid}, 1)
	if resp, _ := s.Do(http.MethodPost, SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST to the deleted session: %d, want 404", resp.StatusCode)
	}
	rec.WaitCount(t, Event{Kind: EventRefused, Status: http.StatusNotFound, Reason: "session_not_found"}, 1)
	if resp, _ := s.Do(http.MethodPost, ModernHeaders("tools/list"), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("2026-07-28 request without clientCapabilities: %d, want 400", resp.StatusCode)
	}
	rec.WaitCount(t, Event{Kind: EventRefused, Status: http.StatusBadRequest, Reason: "invalid_meta"}, 1)
}

// TestNoObserverNoWrap: without an Observer the engine gets the request's
// own context (nothing wraps it) and the handler carries none.
func TestNoObserverNoWrap(t *testing.T) {
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

// TestObserverListenStreams: a 2026-07-28 listen counts as a held stream
// from its start to its end, whether the engine holds it (ErrHold, the
// stream parked) or blocks in Serve.
func TestObserverListenStreams(t *testing.T) {
	for _, hold := range []bool{true, false} {
		t.Run(map[bool]string{true: "ErrHold", false: "blocking"}[hold], func(t *testing.T) {
			rec := &Recorder{}
			e := NewTestEngine()
			e.Hold = hold
			s := StartTestServer(t, e, &Options{Observer: rec}, nil, false)
			ctx, cancel := context.WithCancel(context.Background())
			resp := s.Open(ctx, http.MethodPost, ModernHeaders("subscriptions/listen"), ListenBody)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("listen: %d", resp.StatusCode)
			}
			NewSSEReader(t, resp.Body).Next() // the acknowledgement
			if got := rec.Count(Event{Kind: EventStreamOpened, Stream: StreamListen}); got != 1 {
				t.Errorf("%d listen streams opened, want 1", got)
			}
			if got := rec.Count(Event{Kind: EventStreamClosed, Stream: StreamListen}); got != 0 {
				t.Errorf("listen stream closed while open")
			}
			cancel()
			resp.Body.Close()
			rec.WaitCount(t, Event{Kind: EventStreamClosed, Stream: StreamListen}, 1)
		})
	}
}

// TestMemoryEventStoreOnEvict: OnEvict is called once for each event the
// store's bound evicts.
func TestMemoryEventStoreOnEvict(t *testing.T) {
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
	rec := &Recorder{}
	s := StartTestServer(t, NewTestEngine(), &Options{Observer: rec}, nil, false)
	s.Handler.engine = dropOnOpen{s.Engine}
	s.Initialize(Version20251125)
	rec.WaitCount(t, Event{Kind: EventDropped, Reason: "outbox_full"}, 1)
}
