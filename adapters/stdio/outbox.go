package stdio

import (
	"context"
	"errors"
	"sync"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// outboxBytes bounds what an outbox holds for a client that is not taking
// its messages: past it notifications are dropped and requests fail,
// where waiting would hold up the child's reading goroutine, and every
// other client with it.
const outboxBytes = 1 << 20

// errOutboxFull fails a request to a client too far behind.
var errOutboxFull = errors.New("the client is not taking its messages")

// outbox hands messages to a client (a call's stream, a session's or a
// listen's) in order, on a goroutine of its own while it has any, so that
// the child's reading goroutine never waits for a client.
type outbox struct {
	send0 func(context.Context, *jsonrpc.Message) error

	mu      sync.Mutex
	queue   []outMsg
	bytes   int
	running bool
	idle    chan struct{} // closed when the queue empties, if someone waits
}

type outMsg struct {
	msg   *jsonrpc.Message
	size  int
	onErr func(error) // for requests: told when the message could not go
}

func newOutbox(send func(context.Context, *jsonrpc.Message) error) *outbox {
	return &outbox{send0: send}
}

// send queues msg; onErr, if set, is called if it cannot be delivered.
func (o *outbox) send(msg *jsonrpc.Message, onErr func(error)) {
	m := outMsg{msg: msg, size: len(msg.Method) + len(msg.Params) + len(msg.Result) + 64, onErr: onErr}
	o.mu.Lock()
	if o.bytes+m.size > outboxBytes {
		o.mu.Unlock()
		if onErr != nil {
			onErr(errOutboxFull)
		}
		return
	}
	o.queue = append(o.queue, m)
	o.bytes += m.size
	start := !o.running
	o.running = true
	o.mu.Unlock()
	if start {
		go o.drain()
	}
}

func (o *outbox) drain() {
	for {
		o.mu.Lock()
		if len(o.queue) == 0 {
			o.running = false
			o.queue = nil
			if o.idle != nil {
				close(o.idle)
				o.idle = nil
			}
			o.mu.Unlock()
			return
		}
		m := o.queue[0]
		o.queue[0] = outMsg{}
		o.queue = o.queue[1:]
		o.mu.Unlock()
		err := o.send0(context.Background(), m.msg)
		o.mu.Lock()
		o.bytes -= m.size
		o.mu.Unlock()
		if err != nil && m.onErr != nil {
			m.onErr(err)
		}
	}
}

// flush waits until every message queued so far has been handed over, or
// ctx ends.
func (o *outbox) flush(ctx context.Context) {
	o.mu.Lock()
	if !o.running {
		o.mu.Unlock()
		return
	}
	if o.idle == nil {
		o.idle = make(chan struct{})
	}
	idle := o.idle
	o.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	}
}
