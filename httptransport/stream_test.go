package httptransport

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestCallOnEndedSessionStoresNothing: a POST that found its session just
// before a DELETE ended it gets its refusal without the session's events
// coming back into the event store, which forgot them with the session.
func TestCallOnEndedSessionStoresNothing(t *testing.T) {
	t.Parallel()
	store := NewMemoryEventStore(nil)
	h := New(NewTestEngine(), &Options{Events: store})
	t.Cleanup(func() { _ = h.Shutdown(context.Background()) })
	ls := h.newLiveSession(&Session{ID: "S", Version: Version20251125}, "", "", nil)
	ls.end(context.Background(), true) // the DELETE, between lookup and the call
	r := httptest.NewRequest("POST", "/mcp", nil)
	st := h.newStream(httptest.NewRecorder(), acceptance{sse: true}, output.Role{})
	if run := h.startCall(&exchange{r: r, ls: ls, version: Version20251125}, &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: "tools/list"}, st); run != nil {
		run()
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if s := store.sessions["S"]; s != nil {
		t.Errorf("the ended session is back in the event store with %d streams", len(s.streams))
	}
}
