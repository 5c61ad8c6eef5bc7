package gosdk

import (
	"context"
	"errors"
	"sync"

	"github.com/mcpmount/mcpmount/httptransport"
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
// in order (held 2026-07-28 listens have the hub instead, hub.go), on a goroutine of its own while it has
// any. The SDK notifies its sessions one after another, each write waiting
// for the client's connection to take the message: without an outbox, one
// client that stopped reading (its connection's buffers full) would hold
// every other session's list changes and resource updates for up to the
// transport's WriteTimeout, at every broadcast.
type outbox struct {
	out httptransport.Sender
	ctx context.Context // the session's: drops reach the transport's Observer

	mu      sync.Mutex
	queue   []outMsg
	bytes   int  // the queue's messages' size, the one being sent included
	running bool // a goroutine is draining the queue
}

type outMsg struct {
	ctx  context.Context // a request's own: one given up on is not sent
	msg  *jsonrpc.Message
	size int
	done chan error // for requests, whose sender waits for the outcome
}

// newOutbox returns the outbox of out; ctx (the session's) carries what
// reports a dropped message (httptransport.ReportDropped).
func newOutbox(ctx context.Context, out httptransport.Sender) *outbox {
	return &outbox{out: out, ctx: ctx}
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
		go o.drain()
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

// drain sends the queued messages, and ends when there are none.
func (o *outbox) drain() {
	for {
		o.mu.Lock()
		if len(o.queue) == 0 {
			o.running = false
			o.queue = nil // let a burst's backing array go
			o.mu.Unlock()
			return
		}
		m := o.queue[0]
		o.queue[0] = outMsg{}
		o.queue = o.queue[1:]
		o.mu.Unlock()
		err := m.ctx.Err() // a request whose sender gave up on it stays unsent
		if err == nil {
			err = o.out.Send(m.ctx, m.msg)
		}
		o.mu.Lock()
		o.bytes -= m.size
		o.mu.Unlock()
		if m.done != nil {
			m.done <- err
		}
	}
}
