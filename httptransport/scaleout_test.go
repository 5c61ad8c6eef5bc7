package httptransport_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestSharedStoreDelete: a DELETE on one instance ends the session on
// every instance sharing the store (spec 2025-11-25 basic/transports#session-management: 404 from then on), and
// the other instance's GET stream ends with it.
func TestSharedStoreDelete(t *testing.T) {
	t.Parallel()
	a, b := httptransport.Pair(t, httptransport.Options{SessionIdleTimeout: 100 * time.Millisecond})
	sid := a.Initialize(httptransport.Version20251125)
	if resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != 200 {
		t.Fatalf("B serves the session: %d %s", resp.StatusCode, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h := httptransport.GetHeaders(sid, httptransport.Version20251125)
	get := b.Open(ctx, "GET", h, "")
	if get.StatusCode != 200 {
		t.Fatalf("GET on B: %d", get.StatusCode)
	}
	if resp, _ := a.Do("DELETE", httptransport.SessionHeaders(sid, httptransport.Version20251125), ""); resp.StatusCode != 200 {
		t.Fatalf("DELETE on A: %d", resp.StatusCode)
	}
	if resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != 404 {
		t.Errorf("B after DELETE on A: %d %s", resp.StatusCode, body)
	}
	// B's GET stream ends (at the latest on B's next janitor round).
	r := httptransport.NewSSEReader(t, get.Body)
	for {
		e, err := r.R.Next()
		if err != nil {
			if ctx.Err() != nil {
				t.Fatal("B's GET stream outlived the session")
			}
			break
		}
		_ = e // keep-alive comments until then
	}
}

// TestSharedStoreIdleElsewhere: an instance where a session is idle does
// not end it while another instance serves it: the record stays, and the
// first instance serves the session again when a request comes back.
func TestSharedStoreIdleElsewhere(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		a, b := httptransport.PairOn(t, mn, httptransport.Options{SessionIdleTimeout: 150 * time.Millisecond})
		sid := a.Initialize(httptransport.Version20251125)
		for end := time.Now().Add(600 * time.Millisecond); time.Now().Before(end); time.Sleep(30 * time.Millisecond) {
			if resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != 200 {
				t.Fatalf("B: %d %s", resp.StatusCode, body)
			}
		}
		if resp, body := a.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != 200 {
			t.Errorf("A after the session was busy on B only: %d %s", resp.StatusCode, body)
		}
	})
}

// TestSharedStoreDeleteNotUndone: a call that ends after a DELETE on
// another instance does not write the session back.
func TestSharedStoreDeleteNotUndone(t *testing.T) {
	t.Parallel()
	a, b := httptransport.Pair(t, httptransport.Options{SessionIdleTimeout: -1}) // no janitor to notice the DELETE
	a.Engine.Gate = make(chan struct{})
	sid := a.Initialize(httptransport.Version20251125)
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"remember","arguments":{"text":"r"}}}`)
	}()
	<-a.Engine.Started
	if resp, _ := b.Do("DELETE", httptransport.SessionHeaders(sid, httptransport.Version20251125), ""); resp.StatusCode != 200 {
		t.Fatalf("DELETE on B: %d", resp.StatusCode)
	}
	close(a.Engine.Gate) // the call ends and its state changed
	<-done
	if resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != 404 {
		t.Errorf("after the call on A ended: %d %s", resp.StatusCode, body)
	}
}
