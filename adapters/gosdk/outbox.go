package gosdk

import (
	"context"
	"errors"
	"sync"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/fanout"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// outboxBytes bounds what an outbox holds for a client that is not taking
// its messages, as the memory event store bounds a session's events: a
// message past it is dropped (a request fails), where waiting would hold
// up the SDK's broadcast to every other session.
const outboxBytes = 1 << 20

// errOutboxFull fails a request to a client too far behind (outboxBytes).
var errOutboxFull = errors.New("gosdk: the client is not taking its messages")

// outbox hands a 2025-era session's connection's messages to its Sender
// in order (held 2026-07-28 listens have the hub instead, hub.go), on the
// engine's pool of outbox workers while it has any (fanout.Pool): a
// broadcast to every session costs a few goroutines, not one a session.
// The SDK notifies its sessions one after another, each write waiting for
// the client's connection to take the message: without an outbox, one
// client that stopped reading (its connection's buffers full) would hold
// every other session's list changes and resource updates for up to the
// transport's WriteTimeout, at every broadcast.
type outbox struct {
	out  httptransport.Sender
	ctx  context.Context // the session's: drops reach the transport's Observer
	pool *fanout.Pool[*outbox]

	mu      sync.Mutex
	queue   []outMsg
	bytes   int  // the queue's messages' size, the one being sent included
	running bool // on the pool, or being sent
}

type outMsg struct {
	ctx  context.Context // a request's own: one given up on is not sent
	msg  *jsonrpc.Message
	size int
	done chan error // for requests, whose sender waits for the outcome
}

// newOutbox returns the outbox of out, drained by pool; ctx (the
// session's) carries what reports a dropped message
// (httptransport.ReportDropped).
func newOutbox(ctx context.Context, out httptransport.Sender, pool *fanout.Pool[*outbox]) *outbox {
	return &outbox{out: out, ctx: ctx, pool: pool}
}

// send queues msg. A notification is sent later and send returns at once
// (nil, also when it is dropped); a request is sent in its turn and send
// returns the outcome, so that the SDK learns at once of one that cannot
// reach the client.
func (o *outbox) send(ctx context.Context, msg *jsonrpc.Message) error {
	m := outMsg{ctx: context.WithoutCancel(ctx), msg: msg, size: len(msg.Method) + len(msg.Params) + len(msg.Result) + 64}
	if msg.IsRequest() {
		m.ctx, m.done = ctx, make(chan error, 1)
	}
	o.mu.Lock()
	if o.bytes+m.size > outboxBytes {
		o.mu.Unlock()
		httptransport.ReportDropped(o.ctx, "outbox_full")
		if m.done != nil {
			return errOutboxFull
		}
		return nil
	}
	o.queue = append(o.queue, m)
	o.bytes += m.size
	start := !o.running
	o.running = true
	o.mu.Unlock()
	if start {
		o.pool.Push(o)
	}
	if m.done == nil {
		return nil
	}
	select {
	case err := <-m.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Flush sends the first queued message and reports whether more are
// queued; it implements fanout.Queue.
func (o *outbox) Flush() (more bool) {
	o.mu.Lock()
	if len(o.queue) == 0 {
		o.running = false
		o.queue = nil // let a burst's backing array go
		o.mu.Unlock()
		return false
	}
	m := o.queue[0]
	o.queue[0] = outMsg{}
	o.queue = o.queue[1:]
	o.mu.Unlock()
	err := m.ctx.Err() // a request whose sender gave up on it stays unsent
	if err == nil {
		err = o.out.Send(m.ctx, m.msg)
	}
	if m.done != nil {
		m.done <- err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bytes -= m.size
	if len(o.queue) == 0 {
		o.running = false
		o.queue = nil
		return false
	}
	return true
}
