package httptransport

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// countingRelayStore is a shared MemorySessionStore that counts what it is
// asked to publish for clients, and keeps the last such message. The
// notices instances exchange about a session's stream (sessionfollow.go)
// are the transport's own, and not counted.
type countingRelayStore struct {
	*MemorySessionStore
	published atomic.Int32
	last      atomic.Value // string
}

func (s *countingRelayStore) Publish(ctx context.Context, sessionID string, msg []byte) error {
	if !strings.Contains(string(msg), `"method":"`+streamMethod+`"`) {
		s.published.Add(1)
		s.last.Store(string(msg))
	}
	return s.MemorySessionStore.Publish(ctx, sessionID, msg)
}

// failingRelayStore is a shared store whose relay is down.
type failingRelayStore struct{ *MemorySessionStore }

func (failingRelayStore) Subscribe(context.Context, string, func([]byte)) (func(), error) {
	return nil, errStoreDown
}

func (failingRelayStore) Publish(context.Context, string, []byte) error { return errStoreDown }

// noRelayStore is a shared store that does not implement SessionRelay.
type noRelayStore struct{ SessionStore }

// liveOf returns s's copy of session sid.
func liveOf(t *testing.T, s *TestServer, sid string) *liveSession {
	t.Helper()
	s.Handler.mu.Lock()
	defer s.Handler.mu.Unlock()
	ls := s.Handler.live[sid]
	if ls == nil {
		t.Fatalf("session %s is not served here", sid)
	}
	return ls
}

// pendingOn reports whether s's copy of session sid awaits an answer to
// the server request id.
func pendingOn(t *testing.T, s *TestServer, sid string, id jsonrpc.ID) bool {
	t.Helper()
	ls := liveOf(t, s, sid)
	ls.mu.Lock()
	defer ls.mu.Unlock()
	_, ok := ls.pending[id.Key()]
	return ok
}

// StartSample starts the test engine's "sample" tool on s in session sid
// and returns the call's stream and the sampling request it sent.
func StartSample(t *testing.T, ctx context.Context, s *TestServer, sid string) (*SSEReader, *jsonrpc.Message) {
	t.Helper()
	r := NewSSEReader(t, s.Open(ctx, "POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sample"}}`).Body)
	q := r.NextMessage()
	if q.Method != "sampling/createMessage" {
		t.Fatalf("sample's first message: %+v", q)
	}
	return r, q
}

func SamplingAnswer(id jsonrpc.ID) string {
	return `{"jsonrpc":"2.0","id":` + id.Raw() + `,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`
}

// TestRelayCancelElsewhere: notifications/cancelled POSTed to B cancels
// the call it names, running on A.
func TestRelayCancelElsewhere(t *testing.T) {
	t.Parallel()
	store := &countingRelayStore{MemorySessionStore: NewMemorySessionStore()}
	a, b := Pair(t, Options{HeaderFlushDelay: 20 * time.Millisecond, Sessions: store})
	sid := a.Initialize(Version20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Open(ctx, "POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"text":"x"}}}`)
	<-a.Engine.Started
	cancelled := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"` + strings.Repeat("x", 4096) + `"}}`
	if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), cancelled); resp.StatusCode != 202 {
		t.Fatalf("cancellation POSTed to B: %d %s", resp.StatusCode, body)
	}
	select {
	case <-a.Engine.Cancelled:
		<-a.Engine.SendErrs
	case <-time.After(3 * time.Second):
		t.Fatal("the call on A was not cancelled by notifications/cancelled POSTed to B (3 s)")
	}
	// Only the request id travels, whatever else the client sent.
	if got, want := store.last.Load(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`; got != want {
		t.Errorf("published %.200v, want %s", got, want)
	}
}

// TestRelayStoreWithoutRelay: with a shared store that does not implement
// SessionRelay, an answer POSTed to the wrong instance is answered 202 and
// goes nowhere, as before: the request on A still awaits its answer. A
// notifications/cancelled POSTed there is answered 202 too.
func TestRelayStoreWithoutRelay(t *testing.T) {
	t.Parallel()
	a, b := Pair(t, Options{Sessions: noRelayStore{NewMemorySessionStore()}})
	sid := a.Initialize(Version20251125)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, q := StartSample(t, ctx, a, sid)
	if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), SamplingAnswer(q.ID)); resp.StatusCode != 202 {
		t.Fatalf("answer POSTed to B: %d %s", resp.StatusCode, body)
	}
	if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`); resp.StatusCode != 202 {
		t.Fatalf("cancellation POSTed to B: %d %s", resp.StatusCode, body)
	}
	if !pendingOn(t, a, sid, q.ID) {
		t.Error("A's sampling request was answered through a store without SessionRelay")
	}
	if resp, _ := a.Do("DELETE", SessionHeaders(sid, Version20251125), ""); resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
}

// TestRelayPublishesMintedIDsOnly: a response is published only when its
// id has the form of another copy's server request id; other ids, and ids
// of the receiving copy's own form, are not.
func TestRelayPublishesMintedIDsOnly(t *testing.T) {
	t.Parallel()
	store := &countingRelayStore{MemorySessionStore: NewMemorySessionStore()}
	a, b := Pair(t, Options{Sessions: store})
	sid := a.Initialize(Version20251125)
	if resp, _ := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 200 {
		t.Fatalf("B: %d", resp.StatusCode)
	}
	aTag, bTag := liveOf(t, a, sid).tag, liveOf(t, b, sid).tag
	for _, id := range []string{
		`1`, `"x"`, `"mcpmount-"`, `"mcpmount-` + bTag + `-1"`, // B's own form
		`"mcpmount-` + aTag[:len(aTag)-1] + `-1"`, `"mcpmount-` + aTag + `-01"`, `"mcpmount-` + aTag + `-"`,
		`"mcpmount-` + strings.ToLower(aTag) + `-1"`, `"mcpmount-` + aTag + `-1-2"`,
	} {
		resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
		if resp.StatusCode != 202 {
			t.Fatalf("response %s to B: %d %s", id, resp.StatusCode, body)
		}
		if n := store.published.Load(); n != 0 {
			t.Fatalf("response with id %s was published (%d)", id, n)
		}
	}
	// The form A mints, written with an escape, is published.
	escaped := `"\u006dcpmount-` + aTag + `-99"`
	if resp, _ := b.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":`+escaped+`,"result":{}}`); resp.StatusCode != 202 {
		t.Fatalf("response %s to B: %d", escaped, resp.StatusCode)
	}
	if n := store.published.Load(); n != 1 {
		t.Errorf("a response with A's id form: published %d times, want 1", n)
	}
}

// TestRelayUnsubscribedWhenEnded: each instance serving a session
// subscribes to its channel, and drops the subscription when the session
// ends there, leaving nothing in the memory store.
func TestRelayUnsubscribedWhenEnded(t *testing.T) {
	t.Parallel()
	store := NewMemorySessionStore()
	a, b := Pair(t, Options{Sessions: store})
	sid := a.Initialize(Version20251125)
	if n := store.subscribers(sid); n != 1 {
		t.Fatalf("subscribers after initialize on A: %d, want 1", n)
	}
	if resp, _ := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 200 {
		t.Fatalf("B: %d", resp.StatusCode)
	}
	if n := store.subscribers(sid); n != 2 {
		t.Fatalf("subscribers once B serves the session too: %d, want 2", n)
	}
	if resp, _ := a.Do("DELETE", SessionHeaders(sid, Version20251125), ""); resp.StatusCode != 200 {
		t.Fatalf("DELETE on A: %d", resp.StatusCode)
	}
	if n := store.subscribers(sid); n != 1 {
		t.Fatalf("subscribers after DELETE on A: %d, want B's only", n)
	}
	if resp, _ := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 404 {
		t.Fatalf("B after the DELETE: %d", resp.StatusCode)
	}
	store.relay.mu.Lock()
	defer store.relay.mu.Unlock()
	if len(store.relay.subs) != 0 {
		t.Errorf("the memory store still holds subscriptions: %v", store.relay.subs)
	}
}

// TestRelayDown: an instance whose Subscribe fails logs it and serves
// the session still; a sampling answer POSTed to that instance reaches its
// tool. A Publish that fails is logged, and the POST answered 202.
func TestRelayDown(t *testing.T) {
	t.Parallel()
	var logs testutil.Buffer
	a, b := Pair(t, Options{Sessions: failingRelayStore{NewMemorySessionStore()}, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	sid := a.Initialize(Version20251125)
	if !strings.Contains(logs.String(), "subscribing to the session's relay failed") || !strings.Contains(logs.String(), errStoreDown.Error()) {
		t.Errorf("the failed Subscribe was not logged: %q", logs.String())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r, q := StartSample(t, ctx, a, sid)
	elsewhere := `{"jsonrpc":"2.0","id":"mcpmount-` + liveOf(t, a, sid).tag + `-99","result":{}}`
	if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), elsewhere); resp.StatusCode != 202 {
		t.Fatalf("answer to A's form of id POSTed to B: %d %s", resp.StatusCode, body)
	}
	if !strings.Contains(logs.String(), "relaying a message to the session's other instances failed") {
		t.Errorf("the failed Publish was not logged: %q", logs.String())
	}
	if resp, body := a.Do("POST", SessionHeaders(sid, Version20251125), SamplingAnswer(q.ID)); resp.StatusCode != 202 {
		t.Fatalf("answer POSTed to A: %d %s", resp.StatusCode, body)
	}
	if m := r.NextMessage(); m.ID != jsonrpc.Int64ID(5) || !strings.Contains(string(m.Result), "assistant") {
		t.Errorf("the call on A ended with %s %s %v, want its result holding the answer", m.ID, m.Result, m.Error)
	}
}

// TestShutdownAdoptsNoSession: a request that was reading a session from
// the shared store when Shutdown began is answered 503, and the instance
// leaves neither a live session nor a relay subscription behind (it had
// adopted the session after Shutdown listed those to end).
func TestShutdownAdoptsNoSession(t *testing.T) {
	t.Parallel()
	mem := NewMemorySessionStore()
	store := &GatedGetStore{MemorySessionStore: mem, Entered: make(chan struct{}, 1), Release: make(chan struct{})}
	a, b := Pair(t, Options{Sessions: store})
	sid := a.Initialize(Version20251125)
	store.Arm.Store(true)
	status := make(chan int, 1)
	go func() {
		resp, _ := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools)
		status <- resp.StatusCode
	}()
	<-store.Entered
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shut <- b.Handler.Shutdown(ctx)
	}()
	for !b.Handler.closing.Load() {
		time.Sleep(time.Millisecond)
	}
	close(store.Release)
	if got := <-status; got != http.StatusServiceUnavailable {
		t.Errorf("a request in flight as Shutdown began: %d, want 503", got)
	}
	if err := <-shut; err != nil {
		t.Fatal(err)
	}
	b.Handler.mu.Lock()
	left := len(b.Handler.live)
	b.Handler.mu.Unlock()
	if n := mem.subscribers(sid); n != 1 || left != 0 {
		t.Errorf("after B's Shutdown: %d subscribers on the session's channel (want A's only), %d sessions live on B", n, left)
	}
}
