package httptransport

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/internal/testutil"
)

// lateReplyStore is a shared store whose TouchGet, once armed, answers
// delay after it has extended the record (a remote store's reply in
// flight).
type lateReplyStore struct {
	*MemorySessionStore
	delay time.Duration
	armed atomic.Bool
}

func (s *lateReplyStore) TouchGet(ctx context.Context, id string, ttl time.Duration) (*SessionRecord, error) {
	rec, err := s.MemorySessionStore.TouchGet(ctx, id, ttl)
	if s.armed.Load() {
		time.Sleep(s.delay)
	}
	return rec, err
}

// TestShortCallAfterSlowRefreshKeepsRecord: a call that ends soon after a
// store round trip that took long still leaves the session's record at
// least 7/8 of SessionIdleTimeout to live. The request's refresh once
// dated its touch from the reply, not from before the request, so the
// end of the call skipped its touch and left the record to expire early
// (after 6 s of 8 here), lost to the other instances of a scaled-out
// deployment while the client still used the session.
func TestShortCallAfterSlowRefreshKeepsRecord(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const idle = 8 * time.Second // the janitor's rounds are 2 s apart
		store := &lateReplyStore{MemorySessionStore: NewMemorySessionStore(), delay: 1500 * time.Millisecond}
		a, _ := PairOn(t, &testutil.MemNet{}, Options{Sessions: store, SessionIdleTimeout: idle})
		a.Engine.Gate = make(chan struct{})
		sid := a.Initialize(Version20251125)
		store.armed.Store(true)
		done := make(chan int)
		go func() {
			resp, _ := a.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":"p"}}}`)
			done <- resp.StatusCode
		}()
		// The refresh returns 1.5 s after it touched the record; the call
		// (which changes no state, so saves no record) then waits at the
		// gate.
		time.Sleep(1900 * time.Millisecond)
		ended := time.Now() // before the janitor's first round, 2 s in
		close(a.Engine.Gate)
		if code := <-done; code != 200 {
			t.Fatalf("the call: %d", code)
		}
		store.mu.Lock()
		rec, ok := store.records[sid]
		store.mu.Unlock()
		if min := ended.Add(idle * 7 / 8); !ok || rec.expires.Before(min) {
			t.Errorf("after the call the record expires %v after its end (held: %v), want at least %v", rec.expires.Sub(ended), ok, idle*7/8)
		}
	})
}
