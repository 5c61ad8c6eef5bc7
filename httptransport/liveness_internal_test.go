package httptransport

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// The liveness tests run two instances (handlers sharing one
// MemorySessionStore and one MemoryEventStore) on an in-memory network in
// a synctest bubble, with the default LivenessPeriod: the bubble's clock
// makes the bounds exact. An instance "stops" as a killed one does for
// the others: it renews its liveness record no more, and hears nothing
// more of its sessions' relay channels; the client drops its connections
// to it.

const defaultLivenessPeriod = 5 * time.Second

// livePair starts instances a and b sharing a store and an event store
// on mn.
func livePair(t *testing.T, mn *testutil.MemNet) (a, b *TestServer) {
	t.Helper()
	return PairOn(t, mn, Options{Events: NewMemoryEventStore(nil), Logger: slog.New(slog.DiscardHandler)})
}

// stop makes h stop as a killed instance does, for the others.
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

// open is s.Open with a context of its own: cancel is the client leaving.
func open(s *TestServer, method string, h http.Header, body string) (*http.Response, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	s.T.Cleanup(cancel)
	return s.Open(ctx, method, h, body), cancel
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
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a, b := livePair(t, &testutil.MemNet{})
		sid := a.Initialize(Version20251125)
		call, leave := open(a, "POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"notewait","arguments":{"text":"x"}}}`)
		m, lastID := nextMessageOrNone(t, NewSSEReader(t, call.Body))
		if m == nil || m.Method != "notifications/message" || lastID == "" {
			t.Fatalf("the call's first event: %+v %q", m, lastID)
		}
		stopped := stop(a.Handler)
		leave()

		resumed, _ := open(b, "GET", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		if resumed.StatusCode != http.StatusOK {
			t.Fatalf("resuming on B: %d", resumed.StatusCode)
		}
		twice, _ := open(b, "GET", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		answer, answerID := nextMessageWithin(t, NewSSEReader(t, resumed.Body), time.Minute)
		waited := time.Since(stopped)
		checkStoppedAnswer(t, answer, jsonrpc.Int64ID(7))
		if waited > 2*defaultLivenessPeriod || waited < 2*defaultLivenessPeriod/3 {
			t.Errorf("answered %v after A stopped; want within twice the liveness period, and not before A's record could lapse", waited)
		}
		if stream, _, _ := strings.Cut(lastID, "_"); !strings.HasPrefix(answerID, stream+"_") {
			t.Errorf("the answer's event id %q is not of the call's stream (%s)", answerID, lastID)
		}
		m, id := nextMessageWithin(t, NewSSEReader(t, twice.Body), time.Minute)
		checkStoppedAnswer(t, m, jsonrpc.Int64ID(7))
		if id != answerID {
			t.Errorf("the second resume waiting: event %q, want the stored answer %q", id, answerID)
		}

		again, _ := open(b, "GET", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		m, id = nextMessageWithin(t, NewSSEReader(t, again.Body), time.Minute)
		checkStoppedAnswer(t, m, jsonrpc.Int64ID(7))
		if id != answerID {
			t.Errorf("resumed again: event %q, want the stored answer %q", id, answerID)
		}

		if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"result"`) {
			t.Errorf("the session after its call was answered: %d %s", resp.StatusCode, body)
		}
		// A's call still runs there (it was cut off, not killed): it ends
		// before A's Shutdown, which would otherwise wait for it.
		a.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
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
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a, b := livePair(t, &testutil.MemNet{})
		a.Engine.Gate = make(chan struct{})
		sid := a.Initialize(Version20251125)
		call, leave := open(a, "POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":1}}}`)
		m, lastID := nextMessageOrNone(t, NewSSEReader(t, call.Body))
		if m == nil || m.Method != "notifications/progress" {
			t.Fatalf("the call's first event: %+v", m)
		}
		leave()
		resumed, _ := open(b, "GET", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		r := NewSSEReader(t, resumed.Body)
		time.Sleep(3 * defaultLivenessPeriod) // A lives on: B waits
		synctest.Wait()
		a.Engine.Gate <- struct{}{}
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
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a, b := livePair(t, &testutil.MemNet{})
		sid := a.Initialize(Version20251125)
		if resp, _ := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != http.StatusOK {
			t.Fatalf("B: %d", resp.StatusCode)
		}
		get, _ := open(a, "GET", GetHeaders(sid, Version20251125), "")
		r := NewSSEReader(t, get.Body)
		synctest.Wait() // B heard that A holds the stream
		sendFromB := func(text string) {
			t.Helper()
			b.Engine.Mu.Lock()
			out := b.Engine.Outs[sid]
			b.Engine.Mu.Unlock()
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

		stop(a.Handler) // its GET stays attached there: nothing tells B it went
		time.Sleep(2 * defaultLivenessPeriod)
		synctest.Wait()
		sendFromB("after")
		resumed, _ := open(b, "GET", withLastEventID(GetHeaders(sid, Version20251125), lastID), "")
		if m, _ := nextMessageWithin(t, NewSSEReader(t, resumed.Body), time.Minute); m == nil || !strings.Contains(string(m.Params), "after") {
			t.Fatalf("resumed on B: %+v, want B's message sent after A stopped", m)
		}
	})
}

// TestStoppedInstanceLegacySession: a 2024-11-05 session lives on the
// instance holding its event stream; once that instance has stopped, a
// POST for the session on another instance gets 404 within twice the
// liveness period, instead of a 202 for a message no instance will
// serve.
func TestStoppedInstanceLegacySession(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		a, b := livePair(t, &testutil.MemNet{})
		ctx, leave := context.WithCancel(context.Background())
		defer leave()
		_, endpoint := OpenLegacyVia(t, ctx, a.Client, a.URL, nil)
		post := func() int {
			resp, _ := b.DoURL("POST", b.HTTPServer.URL+endpoint, http.Header{"Content-Type": {"application/json"}}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			return resp.StatusCode
		}
		if code := post(); code != http.StatusAccepted {
			t.Fatalf("POST on B while A lives: %d, want 202", code)
		}
		stop(a.Handler)
		time.Sleep(2 * defaultLivenessPeriod)
		if code := post(); code != http.StatusNotFound {
			t.Errorf("POST on B twice the liveness period after A stopped: %d, want 404", code)
		}
	})
}

// nextMessageOrNone returns the next JSON-RPC message on r and its event
// id, or nil once the stream ends.
func nextMessageOrNone(t *testing.T, r *SSEReader) (*jsonrpc.Message, string) {
	t.Helper()
	for {
		e, err := r.R.Next()
		if err != nil {
			return nil, ""
		}
		if e.IsComment || len(e.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			t.Errorf("event data %q: %v", e.Data, err)
			return nil, ""
		}
		return m, e.ID
	}
}

// nextMessageWithin is nextMessageOrNone, failing the test if no message
// or end comes within d of the bubble's clock.
func nextMessageWithin(t *testing.T, r *SSEReader, d time.Duration) (*jsonrpc.Message, string) {
	t.Helper()
	type next struct {
		m  *jsonrpc.Message
		id string
	}
	got := make(chan next, 1)
	go func() {
		m, id := nextMessageOrNone(t, r)
		got <- next{m, id}
	}()
	select {
	case n := <-got:
		return n.m, n.id
	case <-time.After(d):
		t.Fatalf("no message within %v", d)
		return nil, ""
	}
}
