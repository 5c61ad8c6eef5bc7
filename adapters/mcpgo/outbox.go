package mcpgo

import (
	"context"
	"sync"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/fanout"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// outboxBytes bounds what a session's outbox holds for a client that does
// not take its messages; past it a message is dropped and logged, where
// waiting would hold up mcp-go's broadcast to every other session.
const outboxBytes = 1 << 20

// outbox hands a 2025-era session's messages (list changes, resource
// updates) to the session's Sender in order, on the engine's pool of
// workers while it has any (fanout.Pool): a broadcast to every session
// costs a few goroutines, not one a session. mcp-go broadcasts to its
// sessions one after another from the goroutine that changed a list: one
// client that stopped reading must not hold up the rest.
type outbox struct {
	ctx     context.Context // the session's here
	out     httptransport.Sender
	dropped func(*jsonrpc.Message)
	pool    *fanout.Pool[fanout.Queue]

	mu      sync.Mutex
	queue   []*jsonrpc.Message
	bytes   int
	running bool           // on the pool, or being sent
	wg      sync.WaitGroup // done when not running
}

func newOutbox(ctx context.Context, out httptransport.Sender, dropped func(*jsonrpc.Message), pool *fanout.Pool[fanout.Queue]) *outbox {
	return &outbox{ctx: ctx, out: out, dropped: dropped, pool: pool}
}

func msgSize(m *jsonrpc.Message) int { return len(m.Method) + len(m.Params) + 64 }

// send queues m.
func (o *outbox) send(m *jsonrpc.Message) {
	size := msgSize(m)
	o.mu.Lock()
	if o.bytes+size > outboxBytes {
		o.mu.Unlock()
		o.dropped(m)
		return
	}
	o.queue = append(o.queue, m)
	o.bytes += size
	start := !o.running
	if start {
		o.running = true
		o.wg.Add(1)
	}
	o.mu.Unlock()
	if start {
		o.pool.Push(o)
	}
}

// Flush sends the first queued message, unless the session has ended, and
// reports whether more are queued; it implements fanout.Queue.
func (o *outbox) Flush() (more bool) {
	o.mu.Lock()
	if len(o.queue) == 0 {
		o.running = false
		o.queue = nil
		o.mu.Unlock()
		o.wg.Done()
		return false
	}
	m := o.queue[0]
	o.queue[0] = nil
	o.queue = o.queue[1:]
	o.mu.Unlock()
	if o.ctx.Err() == nil {
		_ = o.out.Send(o.ctx, m) // the session ended, or its client left: nothing to do
	}
	o.mu.Lock()
	o.bytes -= msgSize(m)
	o.mu.Unlock()
	return true
}

// wait waits for the messages queued so far to be sent (or given up on,
// once the session's ctx is done).
func (o *outbox) wait() { o.wg.Wait() }
