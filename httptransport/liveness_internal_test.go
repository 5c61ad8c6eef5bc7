package httptransport

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// The liveness tests run two instances (handlers sharing one
// MemorySessionStore and one MemoryEventStore) in a synctest bubble, with
// the default LivenessPeriod: the bubble's clock makes the bounds exact.
// An instance "stops" as a killed one does for the others: it renews its
// liveness record no more, and its connections to the client are gone.

const defaultLivenessPeriod = 5 * time.Second

// livePair starts instances a and b sharing a store and an event store.
// They are shut down when the bubble's function returns.
func livePair(t *testing.T) (a, b *Handler, engines [2]*TestEngine) {
	t.Helper()
	opts := &Options{
		Sessions:      NewMemorySessionStore(),
		Events:        NewMemoryEventStore(nil),
		DisableHijack: true,
		Logger:        slog.New(slog.DiscardHandler),
	}
	engines = [2]*TestEngine{NewTestEngine(), NewTestEngine()}
	a, b = New(engines[0], opts), New(engines[1], opts)
	t.Cleanup(func() {
		for _, h := range []*Handler{a, b} {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			_ = h.Shutdown(ctx) // a stopped instance's call is still running: it is cut
			cancel()
		}
	})
	return a, b, engines
}

// stop makes h stop as a killed instance does, for the others: it renews
// its liveness record no more, and hears nothing more of its sessions'
// relay channels.
func stop(h *Handler) time.Time {
	h.watch.renewals.halt()
	h.mu.Lock()
	var unsubscribe []func()
	for _, ls := range h.live {
		ls.mu.Lock()
		if ls.unsubscribe != nil {
			unsubscribe = append(unsubscribe, ls.unsubscribe)
			ls.unsubscribe = nil
		}
		ls.mu.Unlock()
	}
	h.mu.Unlock()
	for _, f := range unsubscribe {
		f()
	}
	return time.Now()
}

func withLastEventID(h http.Header, id string) http.Header {
	h.Set("Last-Event-ID", id)
	return h
}

// TestStoppedInstanceCallAnswered: a client whose call was running on an
// instance that stopped resumes the call's stream on another instance and
// gets a -32000 error for the call within twice the liveness period, and
// not before the stopped instance's record could have lapsed; the answer
// is stored once, so a second resume waiting meanwhile, and one after,
// get the same; the session goes on.
func TestStoppedInstanceCallAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, _ := livePair(t)
		sid := bubbleInitialize(t, a)
		call := bubbleDo(a, "POST", "/mcp", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"notewait","arguments":{"text":"x"}}}`)
		m, lastID := nextMessageOrNone(t, call.SSE(t))
		if m == nil || m.Method != "notifications/message" || lastID == "" {
			t.Fatalf("the call's first event: %+v %q", m, lastID)
		}
		stopped := stop(a)
		call.cancel()

		resumed := bubbleDo(b, "GET", "/mcp", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		if resumed.Status() != http.StatusOK {
			t.Fatalf("resuming on B: %d %s", resumed.Status(), resumed.Body(t))
		}
		twice := bubbleDo(b, "GET", "/mcp", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		answer, answerID := nextMessageWithin(t, resumed.SSE(t), time.Minute)
		waited := time.Since(stopped)
		m, id := nextMessageWithin(t, twice.SSE(t), time.Minute)
		checkStoppedAnswer(t, m, jsonrpc.Int64ID(7))
		if id != answerID {
			t.Errorf("the second resume waiting: event %q, want the stored answer %q", id, answerID)
		}
		checkStoppedAnswer(t, answer, jsonrpc.Int64ID(7))
		if waited > 2*defaultLivenessPeriod || waited < 2*defaultLivenessPeriod/3 {
			t.Errorf("answered %v after A stopped; want within twice the liveness period, and not before A's record could lapse", waited)
		}
		if stream, _, _ := strings.Cut(lastID, "_"); !strings.HasPrefix(answerID, stream+"_") {
			t.Errorf("the answer's event id %q is not of the call's stream (%s)", answerID, lastID)
		}

		again := bubbleDo(b, "GET", "/mcp", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		m, id = nextMessageWithin(t, again.SSE(t), time.Minute)
		checkStoppedAnswer(t, m, jsonrpc.Int64ID(7))
		if id != answerID {
			t.Errorf("resumed again: event %q, want the stored answer %q", id, answerID)
		}

		list := bubbleDo(b, "POST", "/mcp", SessionHeaders(sid, Version20251125), ListTools)
		if body := list.Body(t); list.Status() != http.StatusOK || !strings.Contains(body, `"result"`) {
			t.Errorf("the session after its call was answered: %d %s", list.Status(), body)
		}
	})
}

func checkStoppedAnswer(t *testing.T, m *jsonrpc.Message, id jsonrpc.ID) {
	t.Helper()
	switch {
	case m == nil:
		t.Fatal("the resumed stream ended without an answer for the call")
	case m.ID != id || m.Error == nil:
		t.Fatalf("resumed stream: %+v, want an error for id %s", m, id)
	case m.Error.Code != jsonrpc.CodeServerError || m.Error.Message != errInstanceStopped.Message:
		t.Errorf("error %d %q, want %d %q", m.Error.Code, m.Error.Message, jsonrpc.CodeServerError, errInstanceStopped.Message)
	}
}

// TestLiveInstanceCallFollowed: while the instance running a call lives,
// a client resuming the call's stream on another instance gets the call's
// own answer there, once the call ends, and no error.
func TestLiveInstanceCallFollowed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, engines := livePair(t)
		engines[0].Gate = make(chan struct{})
		sid := bubbleInitialize(t, a)
		call := bubbleDo(a, "POST", "/mcp", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":1}}}`)
		m, lastID := nextMessageOrNone(t, call.SSE(t))
		if m == nil || m.Method != "notifications/progress" {
			t.Fatalf("the call's first event: %+v", m)
		}
		call.cancel()
		resumed := bubbleDo(b, "GET", "/mcp", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		r := resumed.SSE(t)
		time.Sleep(3 * defaultLivenessPeriod) // A lives on: B waits
		synctest.Wait()
		engines[0].Gate <- struct{}{}
		if m, _ := nextMessageWithin(t, r, time.Minute); m == nil || m.Method != "notifications/progress" {
			t.Fatalf("resumed on B: %+v, want A's second progress notification", m)
		}
		if m, _ := nextMessageWithin(t, r, time.Minute); m == nil || m.ID != jsonrpc.StringID("p") || m.Error != nil {
			t.Fatalf("resumed on B: %+v, want the call's answer", m)
		}
		if m, _ := nextMessageWithin(t, r, time.Minute); m != nil {
			t.Errorf("after the answer: %+v, want the end of the stream", m)
		}
	})
}

// TestStoppedInstanceGetStream: a session's messages stop going to the GET
// stream held by an instance that stopped, within twice the liveness
// period: a message sent after that waits on the instance that sent it,
// and reaches the client when it resumes its GET stream there.
func TestStoppedInstanceGetStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, engines := livePair(t)
		sid := bubbleInitialize(t, a)
		if list := bubbleDo(b, "POST", "/mcp", SessionHeaders(sid, Version20251125), ListTools); list.Status() != http.StatusOK {
			t.Fatalf("B: %d", list.Status())
		}
		get := bubbleDo(a, "GET", "/mcp", GetHeaders(sid, Version20251125), "")
		r := get.SSE(t)
		synctest.Wait() // B heard that A holds the stream
		sendFromB := func(text string) {
			t.Helper()
			engines[1].Mu.Lock()
			out := engines[1].Outs[sid]
			engines[1].Mu.Unlock()
			msg := jsonrpc.NewNotification("notifications/message", []byte(`{"level":"info","data":"`+text+`"}`))
			if err := out.Send(context.Background(), msg); err != nil {
				t.Fatal(err)
			}
		}
		sendFromB("before")
		m, lastID := nextMessageOrNone(t, r)
		if m == nil || !strings.Contains(string(m.Params), "before") {
			t.Fatalf("A's GET stream: %+v, want B's message", m)
		}

		stop(a) // its GET stays attached there: nothing tells B it went
		time.Sleep(2 * defaultLivenessPeriod)
		synctest.Wait()
		sendFromB("after")
		resumed := bubbleDo(b, "GET", "/mcp", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		if m, _ := nextMessageWithin(t, resumed.SSE(t), time.Minute); m == nil || !strings.Contains(string(m.Params), "after") {
			t.Fatalf("resumed on B: %+v, want B's message sent after A stopped", m)
		}
		resumed.cancel()
		get.cancel()
	})
}

// TestStoppedInstanceLegacySession: a 2024-11-05 session lives on the
// instance holding its event stream; once that instance has stopped, a
// POST for the session on another instance gets 404 within twice the
// liveness period, instead of a 202 for a message no instance will
// serve.
func TestStoppedInstanceLegacySession(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, _ := livePair(t)
		get := bubbleDo(a, "GET", "/mcp", http.Header{"Accept": {"text/event-stream"}}, "")
		e := get.SSE(t).Next()
		if e.Name != "endpoint" {
			t.Fatalf("first event %q, want endpoint", e.Name)
		}
		endpoint := string(e.Data)
		post := func() int {
			resp := bubbleDo(b, "POST", endpoint, http.Header{"Content-Type": {"application/json"}}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			resp.Body(t)
			return resp.Status()
		}
		if code := post(); code != http.StatusAccepted {
			t.Fatalf("POST on B while A lives: %d, want 202", code)
		}
		stop(a)
		time.Sleep(2 * defaultLivenessPeriod)
		if code := post(); code != http.StatusNotFound {
			t.Errorf("POST on B twice the liveness period after A stopped: %d, want 404", code)
		}
		get.cancel()
	})
}
