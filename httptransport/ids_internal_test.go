package httptransport

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestCancelledOutByIDValue: the engine's notifications/cancelled names
// the request it sent by its JSON value: "\u0061" for the request sent as
// "a" is rewritten to the id the client saw, and the request forgotten
// (bytes were once compared).
func TestCancelledOutByIDValue(t *testing.T) {
	t.Parallel()
	h := New(NewTestEngine(), nil)
	defer h.Shutdown(context.Background())
	ls := h.newLiveSession(&Session{ID: newSessionID(), Version: Version20251125}, "", "", nil)
	for _, tc := range []struct{ sent, named string }{
		{`"a"`, `"\u0061"`},
		{`"a<b"`, `"a\u003cb"`},
		{`0`, `-0`},
	} {
		engineID, err := jsonrpc.ParseID(json.RawMessage(tc.sent))
		if err != nil {
			t.Fatal(err)
		}
		clientID := ls.registerRequest(nil, engineID)
		msg := jsonrpc.NewNotification("notifications/cancelled", json.RawMessage(`{"requestId":`+tc.named+`}`))
		out := ls.cancelledOut(nil, msg)
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		_ = json.Unmarshal(out.Params, &p)
		if string(p.RequestID) != clientID.Raw() {
			t.Errorf("engine request %s, cancelled as %s: client sees requestId %s, want %s (the id it was sent)", tc.sent, tc.named, p.RequestID, clientID.Raw())
		}
	}
}

// pausingDeleteStore wraps the handler's own store: once armed, Delete
// deletes, then reports it and waits (a scheduling of the goroutines the
// real store allows: nothing orders Delete before the session's end); Put
// reports each write.
type pausingDeleteStore struct {
	*MemorySessionStore
	deleted chan struct{}
	resume  chan struct{}
	puts    chan struct{}
}

func (s *pausingDeleteStore) Delete(ctx context.Context, id string) error {
	err := s.MemorySessionStore.Delete(ctx, id)
	s.deleted <- struct{}{}
	<-s.resume
	return err
}

func (s *pausingDeleteStore) Put(ctx context.Context, rec *SessionRecord, ttl time.Duration) error {
	err := s.MemorySessionStore.Put(ctx, rec, ttl)
	select {
	case s.puts <- struct{}{}:
	default:
	}
	return err
}

// TestDeleteRacesSave: a call ending while its session is deleted does
// not write the session back (the DELETE and the save of its state are
// ordered): after the DELETE's 200 the session is gone.
func TestDeleteRacesSave(t *testing.T) {
	t.Parallel()
	e := NewTestEngine()
	e.Gate = make(chan struct{})
	s := StartTestServer(t, e, nil, nil, false)
	sid := s.Initialize(Version20251125)
	store := &pausingDeleteStore{MemorySessionStore: s.Handler.sessions.(*MemorySessionStore), deleted: make(chan struct{}, 1), resume: make(chan struct{}), puts: make(chan struct{}, 1)}
	s.Handler.sessions = store // nothing reads it concurrently: the session is idle

	h := SessionHeaders(sid, Version20251125)
	callDone := make(chan struct{})
	go func() {
		defer close(callDone)
		req, _ := http.NewRequest("POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"remember","arguments":{"text":"x"}}}`))
		req.Header = h.Clone()
		if resp, err := s.Client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-e.Started
	delStatus := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("DELETE", s.URL, nil)
		req.Header = SessionHeaders(sid, Version20251125)
		resp, err := s.Client.Do(req)
		if err != nil {
			delStatus <- 0
			return
		}
		resp.Body.Close()
		delStatus <- resp.StatusCode
	}()
	<-store.deleted // the record is gone, the session not yet ended
	close(e.Gate)   // the call ends and saves its state
	select {
	case <-store.puts:
	case <-time.After(time.Second):
	}
	close(store.resume)
	if code := <-delStatus; code != http.StatusOK {
		t.Fatalf("DELETE: %d", code)
	}
	<-callDone
	if _, err := store.MemorySessionStore.Get(context.Background(), sid); err == nil {
		t.Errorf("the record of session %s is in the store after its DELETE got 200", sid)
	}
	if resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after a successful DELETE: %d %s, want 404", resp.StatusCode, body)
	}
}
