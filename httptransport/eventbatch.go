package httptransport

import (
	"context"
	"sync"
)

// BatchEventStore is an EventStore that records many events in one round
// trip (a Redis pipeline, say). It is optional: a store passed in
// Options.Events that implements it has its appends batched. The appends
// under way at once, on the streams of many sessions (a list change
// broadcast to every session, say), then go to the store together, up to
// 128 at a time, one batch after another, instead of one round trip each;
// Append is not called. A wrapper that embeds such a store and wraps its
// Append must wrap AppendBatch too.
type BatchEventStore interface {
	EventStore
	// AppendBatch records the events in order, each as Append would. It
	// returns nil if it recorded them all, or one error per event, nil
	// for those recorded. No two events of a batch are of one stream.
	AppendBatch(ctx context.Context, events []EventAppend) []error
}

// EventAppend is one event of a BatchEventStore's AppendBatch: what Append
// takes.
type EventAppend struct {
	Session, Stream string
	Index           int
	Data            []byte // nil for a priming event
}

// maxAppendBatch bounds the events of one AppendBatch.
const maxAppendBatch = 128

// appendBatcher batches the appends of concurrent streams to a
// BatchEventStore, as a group commit: an append joins the queue and waits;
// when no batch is being written, the one that arrives writes the queue's
// first events (its own among them) as a batch, then hands the writing on
// to the first of those still queued. No goroutine of its own runs, and
// one batch is written at a time. A stream has one append at a time (it
// waits for it under its lock), so a batch has one event per stream at
// most, and a stream's events are written in order.
type appendBatcher struct {
	store BatchEventStore
	ctx   func() (context.Context, context.CancelFunc) // a batch's: bounded, and not one stream's

	mu      sync.Mutex
	queue   []*queuedAppend
	writing bool // a batch is being written, or its writer chosen
}

// queuedAppend is an append waiting in the queue.
type queuedAppend struct {
	ev   EventAppend
	err  error
	wake chan bool // true: write the next batch; false: done, err set
}

// Append implements output.Store: it returns once the event is recorded,
// or failed to be, whatever ctx does (the batch has a context of its own,
// which Shutdown ends at its deadline).
func (b *appendBatcher) Append(_ context.Context, session, stream string, index int, data []byte) error {
	q := &queuedAppend{ev: EventAppend{Session: session, Stream: stream, Index: index, Data: data}, wake: make(chan bool, 1)}
	b.mu.Lock()
	b.queue = append(b.queue, q)
	lead := !b.writing
	b.writing = true
	b.mu.Unlock()
	for lead || <-q.wake {
		lead = false
		b.writeBatch()
	}
	return q.err
}

// writeBatch writes the queue's first events, then wakes their appends,
// and the append first in the queue after them to write the next batch.
func (b *appendBatcher) writeBatch() {
	b.mu.Lock()
	n := min(len(b.queue), maxAppendBatch)
	batch := make([]*queuedAppend, n)
	copy(batch, b.queue)
	clear(b.queue[:n])
	b.queue = b.queue[n:]
	b.mu.Unlock()
	events := make([]EventAppend, n)
	for i, q := range batch {
		events[i] = q.ev
	}
	ctx, cancel := b.ctx()
	errs := b.store.AppendBatch(ctx, events)
	cancel()
	for i, q := range batch {
		if i < len(errs) {
			q.err = errs[i]
		}
	}
	b.mu.Lock()
	var next *queuedAppend
	if len(b.queue) > 0 {
		next = b.queue[0]
	} else {
		b.writing = false
		b.queue = nil // let a burst's array go
	}
	b.mu.Unlock()
	for _, q := range batch {
		q.wake <- false
	}
	if next != nil {
		next.wake <- true
	}
}

// After implements output.Store.
func (b *appendBatcher) After(ctx context.Context, session, stream string, index int) ([][]byte, error) {
	return b.store.After(ctx, session, stream, index)
}
