package httptransport

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestFinishedStreamLetsGo: a call answered over SSE, the stream opened by
// its answer, leaves no keep-alive timer armed: the timer would keep the
// ended stream, and what it holds, in memory until it fired.
func TestFinishedStreamLetsGo(t *testing.T) {
	h := New(NewTestEngine(), nil)
	for _, open := range []bool{false, true} {
		st := h.newStream(httptest.NewRecorder(), acceptance{sse: true}, streamRole{})
		st.startTimer(nil)
		if open {
			st.mu.Lock()
			st.openLocked()
			st.mu.Unlock()
		}
		st.finish(jsonrpc.NewResponse(jsonrpc.Int64ID(1), []byte(`{}`)))
		if st.clock.timer.Stop() {
			t.Errorf("stream open before its answer %v: keep-alive timer still armed after the answer", open)
		}
	}
}

// TestCallOnEndedSessionStoresNothing: a POST that found its session just
// before a DELETE ended it gets its refusal without the session's events
// coming back into the event store, which forgot them with the session.
func TestCallOnEndedSessionStoresNothing(t *testing.T) {
	store := NewMemoryEventStore(nil)
	h := New(NewTestEngine(), &Options{Events: store})
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	ls := h.newLiveSession(&Session{ID: "S", Version: Version20251125}, "", "", nil)
	ls.end(context.Background(), true) // the DELETE, between lookup and the call
	r := httptest.NewRequest("POST", "/mcp", nil)
	st := h.newStream(httptest.NewRecorder(), acceptance{sse: true}, streamRole{})
	if run := h.startCall(&exchange{r: r, ls: ls, version: Version20251125}, &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: "tools/list"}, st); run != nil {
		run()
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if s := store.sessions["S"]; s != nil {
		t.Errorf("the ended session is back in the event store with %d streams", len(s.streams))
	}
}
