package httptransport

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// gatedAppendEvents is an EventStore whose appends, once armed, wait for
// release and fail if their context ended meanwhile. It notes the appends
// it recorded and the sessions it forgot, in order.
type gatedAppendEvents struct {
	*MemoryEventStore
	arm     atomic.Bool
	entered chan struct{}
	release chan struct{}

	mu  sync.Mutex
	ops []string
}

func (e *gatedAppendEvents) note(op string) {
	e.mu.Lock()
	e.ops = append(e.ops, op)
	e.mu.Unlock()
}

func (e *gatedAppendEvents) Append(ctx context.Context, session, stream string, index int, data []byte) error {
	if e.arm.Load() {
		e.entered <- struct{}{}
		<-e.release
		if err := ctx.Err(); err != nil {
			e.note("append failed: " + err.Error())
			return err
		}
		e.note("append")
	}
	return e.MemoryEventStore.Append(ctx, session, stream, index, data)
}

func (e *gatedAppendEvents) SessionClosed(ctx context.Context, session string) error {
	e.note("closed")
	return e.MemoryEventStore.SessionClosed(ctx, session)
}

// TestAppendOutlivesSessionEnd: an event being appended to a user's
// EventStore as its client DELETEs the session is recorded, and then the
// session's events are forgotten. The append was once cancelled as the
// session ended (and logged as failed).
func TestAppendOutlivesSessionEnd(t *testing.T) {
	ev := &gatedAppendEvents{MemoryEventStore: NewMemoryEventStore(nil), entered: make(chan struct{}, 1), release: make(chan struct{})}
	s := StartTestServer(t, NewTestEngine(), &Options{Events: ev}, nil, false)
	sid := s.Initialize(Version20251125)
	s.Handler.mu.Lock()
	ls := s.Handler.live[sid]
	s.Handler.mu.Unlock()
	s.Engine.Mu.Lock()
	out := s.Engine.Outs[sid]
	s.Engine.Mu.Unlock()

	ev.arm.Store(true)
	sent := make(chan error, 1)
	go func() {
		sent <- out.Send(context.Background(), jsonrpc.NewNotification("notifications/tools/list_changed", nil))
	}()
	<-ev.entered
	ev.arm.Store(false)
	deleted := make(chan int, 1)
	go func() {
		resp, _ := s.Do("DELETE", SessionHeaders(sid, Version20251125), "")
		deleted <- resp.StatusCode
	}()
	<-ls.ctx.Done() // the DELETE ended the session here, and waits for its stream
	close(ev.release)
	if err := <-sent; err != nil {
		t.Errorf("Send: %v", err)
	}
	if code := <-deleted; code != 200 {
		t.Errorf("DELETE: %d", code)
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if want := []string{"append", "closed"}; !slices.Equal(ev.ops, want) {
		t.Errorf("the store saw %q, want %q", ev.ops, want)
	}
}

// batchEvents is a BatchEventStore in memory that notes the size of each
// batch; once armed, its next batch waits for release.
type batchEvents struct {
	*MemoryEventStore
	arm     atomic.Bool
	entered chan struct{}
	release chan struct{}

	mu    sync.Mutex
	sizes []int
}

func (e *batchEvents) AppendBatch(ctx context.Context, events []EventAppend) []error {
	if e.arm.CompareAndSwap(true, false) {
		e.entered <- struct{}{}
		<-e.release
	}
	e.mu.Lock()
	e.sizes = append(e.sizes, len(events))
	e.mu.Unlock()
	errs := make([]error, len(events))
	for i, ev := range events {
		errs[i] = e.MemoryEventStore.Append(ctx, ev.Session, ev.Stream, ev.Index, ev.Data)
	}
	return errs
}

// TestAppendsBatched: with a BatchEventStore, the appends that wait while
// a batch is being written (a list change sent to many sessions at once)
// go to the store as one batch, and every session's event is kept for it.
func TestAppendsBatched(t *testing.T) {
	ev := &batchEvents{MemoryEventStore: NewMemoryEventStore(nil), entered: make(chan struct{}, 1), release: make(chan struct{})}
	s := StartTestServer(t, NewTestEngine(), &Options{Events: ev}, nil, false)
	const n = 16
	sids := make([]string, n)
	for i := range sids {
		sids[i] = s.Initialize(Version20251125)
	}
	s.Engine.Mu.Lock()
	outs := make([]Sender, n)
	for i, sid := range sids {
		outs[i] = s.Engine.Outs[sid]
	}
	s.Engine.Mu.Unlock()
	ev.mu.Lock()
	ev.sizes = nil
	ev.mu.Unlock()

	ev.arm.Store(true)
	var wg sync.WaitGroup
	send := func(out Sender) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := out.Send(context.Background(), jsonrpc.NewNotification("notifications/tools/list_changed", nil)); err != nil {
				t.Errorf("Send: %v", err)
			}
		}()
	}
	send(outs[0])
	select {
	case <-ev.entered: // the first batch is being written
	case <-time.After(10 * time.Second):
		close(ev.release)
		wg.Wait()
		t.Fatal("no batch written 10 s after a Send: the appends go to Append, one by one")
	}
	for _, out := range outs[1:] {
		send(out)
	}
	b, ok := s.Handler.out.Events.(*appendBatcher)
	if !ok {
		t.Fatalf("the streams' store is a %T, not batched", s.Handler.out.Events)
	}
	deadline := time.Now().Add(10 * time.Second)
	for queued := 0; queued < n-1; {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d appends queued after 10 s", queued, n-1)
		}
		runtime.Gosched()
		b.mu.Lock()
		queued = len(b.queue)
		b.mu.Unlock()
	}
	close(ev.release)
	wg.Wait()
	ev.mu.Lock()
	sizes := ev.sizes
	ev.mu.Unlock()
	if want := []int{1, n - 1}; !slices.Equal(sizes, want) {
		t.Errorf("batches of %v, want %v", sizes, want)
	}
	for _, sid := range sids {
		s.Handler.mu.Lock()
		ls := s.Handler.live[sid]
		s.Handler.mu.Unlock()
		got, err := ev.After(context.Background(), sid, ls.standalone.ID(), 0)
		if err != nil || len(got) != 1 {
			t.Errorf("session %s: %d events kept (%v), want the list change", sid, len(got), err)
		}
	}
}
