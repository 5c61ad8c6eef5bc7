package httptransport_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestDeleteStoreFailure: spec 2025-11-25 basic/transports#session-management, "After a successful DELETE,
// requests carrying that id -> 404". A DELETE the shared store fails to
// carry out gets 503 (it once got 200 while the record stayed, and every
// instance served the session again), and leaves the session as it was.
func TestDeleteStoreFailure(t *testing.T) {
	t.Parallel()
	store := httptransport.NewFaultStore()
	store.FailDelete.Store(true)
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{Sessions: store}, nil, false)
	sid := s.Initialize(httptransport.Version20251125)
	resp, body := s.Do("DELETE", httptransport.SessionHeaders(sid, httptransport.Version20251125), "")
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("DELETE with the store failing: %d %s (Retry-After %q), want 503 with Retry-After", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != http.StatusOK {
		t.Errorf("the session after a failed DELETE: %d %s, want it served", resp.StatusCode, body)
	}
}

// TestJanitorSparesSessionTakenUp: the janitor ends an idle session only
// if it is still idle at that moment: a call that began during the
// janitor's store round trip (a shared store) goes on. It was once
// cancelled by the expiry of the copy it ran on, against "Ends sessions
// with nothing in flight and no stream open".
func TestJanitorSparesSessionTakenUp(t *testing.T) {
	t.Parallel()
	store := &httptransport.GatedGetStore{MemorySessionStore: httptransport.NewMemorySessionStore(), Entered: make(chan struct{}, 1), Release: make(chan struct{})}
	// B touches the record every 40 ms; the idle timeout leaves room for
	// a loaded machine to delay those touches many times over, or the
	// record itself expires and the call ends with its session.
	opts := httptransport.Options{Sessions: store, SessionIdleTimeout: 1500 * time.Millisecond}
	oa, ob := opts, opts
	a := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &oa, nil, false)
	b := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &ob, nil, false)
	var once sync.Once
	releaseGet := func() { once.Do(func() { close(store.Release) }) }
	t.Cleanup(releaseGet)
	sid := a.Initialize(httptransport.Version20251125)
	// The client works with B meanwhile, which keeps the record alive.
	if resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != 200 {
		t.Fatalf("B: %d %s", resp.StatusCode, body)
	}
	stopB := make(chan struct{})
	bDone := make(chan struct{})
	go func() {
		defer close(bDone)
		for {
			select {
			case <-stopB:
				return
			case <-time.After(40 * time.Millisecond):
			}
			b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
		}
	}()
	defer func() { close(stopB); <-bDone }()
	store.Arm.Store(true)
	select {
	case <-store.Entered: // A's janitor found its copy idle and asks the store
	case <-time.After(15 * time.Second):
		t.Fatal("A's janitor never checked the idle session")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", a.URL, strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{"text":"busy"}}}`))
		for k, v := range httptransport.SessionHeaders(sid, httptransport.Version20251125) {
			req.Header[k] = v
		}
		if resp, err := a.Client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-a.Engine.Started:
	case <-time.After(15 * time.Second):
		t.Fatal("the call never started on A")
	}
	releaseGet()
	select {
	case <-a.Engine.Cancelled:
		<-a.Engine.SendErrs
		t.Fatal("a call in flight on A was cancelled by the idle expiry of A's copy of its session")
	case <-time.After(700 * time.Millisecond):
	}
	// The call is the client's to cancel.
	if resp, body := a.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %d %s", resp.StatusCode, body)
	}
	<-a.Engine.Cancelled
	<-a.Engine.SendErrs
}
