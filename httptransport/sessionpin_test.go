package httptransport_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// holdTouchStore holds the first TouchGet of session target until release.
type holdTouchStore struct {
	*httptransport.MemorySessionStore
	target  atomic.Value // string
	entered chan struct{}
	release chan struct{}
}

func (s *holdTouchStore) TouchGet(ctx context.Context, id string, ttl time.Duration) (*httptransport.SessionRecord, error) {
	if t, _ := s.target.Load().(string); t == id {
		s.target.Store("")
		close(s.entered)
		<-s.release
	}
	return s.MemorySessionStore.TouchGet(ctx, id, ttl)
}

// TestSessionPinnedWhileServed: a session a request has found is not idle
// until the request is done with it, even before its call starts: at the
// session bound, another initialize does not end it under the request
// (which got "request id already in flight" before), and is refused.
func TestSessionPinnedWhileServed(t *testing.T) {
	t.Parallel()
	st := &holdTouchStore{MemorySessionStore: httptransport.NewMemorySessionStore(), entered: make(chan struct{}), release: make(chan struct{})}
	s := httptransport.NewTestServer(t, &httptransport.Options{Sessions: st, MaxSessions: 1})
	sid := s.Initialize(httptransport.Version20251125)
	st.target.Store(sid)
	done := make(chan int, 1)
	go func() {
		resp, _ := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
		done <- resp.StatusCode
	}()
	<-st.entered // the request has found the session, its call not yet started
	if status, _, _ := s.InitializeFrom(nil); status != http.StatusServiceUnavailable {
		t.Errorf("initialize at the bound while the one session is being served: %d, want 503", status)
	}
	close(st.release)
	if code := <-done; code != http.StatusOK {
		t.Errorf("the request on the session: %d, want 200", code)
	}
	if !s.Alive(sid) {
		t.Error("the session ended under its request")
	}
}
