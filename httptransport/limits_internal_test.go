package httptransport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Eventually polls f until it reports true.
func Eventually(t *testing.T, what string, f func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !f(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
	}
}

const ListenBody = `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + Meta + `}}`

// TestStreamLimitSpread: MaxStreamDuration is shortened by a random tenth
// at most, so streams opened together do not all end together; a token's
// expiry is never exceeded.
func TestStreamLimitSpread(t *testing.T) {
	t.Parallel()
	h := New(NewTestEngine(), &Options{MaxStreamDuration: time.Second})
	defer h.Shutdown(context.Background())
	r := httptest.NewRequest("GET", "/mcp", nil)
	seen := map[time.Duration]bool{}
	for range 100 {
		d, ok := h.streamLimit(r)
		if !ok || d < 900*time.Millisecond || d > time.Second {
			t.Fatalf("limit %v %v, want within [0.9s, 1s]", d, ok)
		}
		seen[d] = true
	}
	if len(seen) < 2 {
		t.Error("every stream got the same limit")
	}
	soon := identity.NewContext(context.Background(), &identity.Info{Subject: "a", Expiry: time.Now().Add(100 * time.Millisecond)})
	if d, ok := h.streamLimit(r.WithContext(soon)); !ok || d > 100*time.Millisecond {
		t.Errorf("a token expiring in 100 ms: limit %v %v", d, ok)
	}
}

// attachedGET binds a recorder, as a GET would, to a stream of a
// 2025-11-25 session "S" whose events go to store.
func attachedGET(t *testing.T, store *MemoryEventStore, id string, standalone bool) (st *output.Stream, detached <-chan struct{}, rec *httptest.ResponseRecorder) {
	t.Helper()
	h := New(NewTestEngine(), &Options{Events: store})
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ls := &liveSession{h: h, id: "S", sess: &Session{ID: "S", Version: Version20251125}, ctx: ctx}
	st = h.newStream(nil, acceptance{sse: true}, output.Role{Modern: true, Standalone: standalone})
	st.JoinSession(ls, id, false)
	rec = httptest.NewRecorder()
	detached, err := st.Attach(rec, 0, false, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st, detached, rec
}

// TestNoDisconnectEventAfterEnd: a stream whose final response is written
// while a GET is still attached (the handler has not yet run detach) gets
// no server-side disconnect event when its time limit fires in that
// window: the client would see an event after the response, and the store
// an event appended to an ended stream.
func TestNoDisconnectEventAfterEnd(t *testing.T) {
	t.Parallel()
	store := NewMemoryEventStore(nil)
	st, detached, rec := attachedGET(t, store, "c1", false)
	st.Finish(&jsonrpc.Message{ID: jsonrpc.StringID("x"), Result: []byte(`{}`)})
	before := rec.Body.String()
	st.DetachAttached(detached) // the limit timer, firing before hold's detach
	if after := rec.Body.String(); after != before {
		t.Errorf("event written after the final response:\n%q", strings.TrimPrefix(after, before))
	}
	if evs, _ := store.After(context.Background(), "S", "c1", 0); len(evs) != 1 {
		t.Errorf("store holds %d events for the ended stream, want 1 (the response)", len(evs))
	}
}

// TestNoDisconnectEventAfterSessionClosed: the same window at a session's
// end (DELETE): ls.end cuts the GET stream, then SessionClosed forgets the
// events; a limit timer firing before the GET lets go must not bring the
// closed session back into the MemoryEventStore, where nothing would ever
// remove it.
func TestNoDisconnectEventAfterSessionClosed(t *testing.T) {
	t.Parallel()
	store := NewMemoryEventStore(nil)
	st, detached, _ := attachedGET(t, store, "t0", true)
	st.Cut()
	_ = store.SessionClosed(context.Background(), "S")
	st.DetachAttached(detached)
	store.mu.Lock()
	_, leaked := store.sessions["S"]
	store.mu.Unlock()
	if leaked {
		t.Error("the closed session is back in the event store")
	}
}

// stubbornEngine sends one notification, then answers only when released,
// as an engine slow to stop would.
type stubbornEngine struct {
	*TestEngine
	sent    chan error
	release chan struct{}
}

func (e *stubbornEngine) Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	e.sent <- call.Send(ctx, jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":"x"}`)))
	<-e.release
	return jsonrpc.NewResponse(call.Request.ID, []byte(`{}`)), nil
}

// failingWriter is a response whose client is gone: every write fails.
type failingWriter struct{ h http.Header }

func (w *failingWriter) Header() http.Header       { return w.h }
func (w *failingWriter) WriteHeader(int)           {}
func (w *failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }
func (w *failingWriter) Flush()                    {}

// TestDroppedCallKeepsPlace: a 2026-07-28 call whose client is gone (its
// stream's writes fail) keeps its place in the principal's quota until the
// engine has stopped it, as documented: a client dropping calls to a slow
// tool cannot pass MaxCallsPerPrincipal.
func TestDroppedCallKeepsPlace(t *testing.T) {
	t.Parallel()
	e := &stubbornEngine{TestEngine: NewTestEngine(), sent: make(chan error, 1), release: make(chan struct{})}
	h := New(e, &Options{MaxCallsPerPrincipal: 1})
	defer h.Shutdown(context.Background())
	hd := ModernHeaders("tools/call")
	hd.Set("Mcp-Name", "echo")
	r := httptest.NewRequest("POST", "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"},`+Meta+`}}`))
	r.Header = hd
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(&failingWriter{h: http.Header{}}, r)
	}()
	<-e.sent
	if h.calls.take("", 1) {
		t.Error("the dropped call's place was given back while the engine still runs it")
		h.calls.give("", 1)
	}
	close(e.release)
	<-done
	if !h.calls.take("", 1) {
		t.Error("the call's place was not given back once the engine stopped")
	}
}
