package mcpgo

import (
	"sync"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/internal/fanout"
)

// pipeSize is the capacity of a session's notification channel, and so the
// number of notifications a sender may be ahead of the session's consumer.
const pipeSize = 16

// pipe is a session's notification channel, as mcp-go writes to it, and
// what takes the notifications out of it.
//
// mcp-go sends a notification with a select that drops it when the channel
// is full (server/session.go: sendNotificationCore, broadcastToSession),
// right after calling the session's UpgradeToSSEWhenReceiveNotification.
// That call is reserve: it waits for room, so that the send that follows
// always finds some and nothing is dropped; a sender that outpaces the
// consumer waits for it instead. A goroutine hands the notifications to
// sink, in order, while there are any: one of the pipe's own, or the
// pool's (the pipes of sessions and listens, which a broadcast reaches by
// the thousand); an idle pipe has none. The channels are made on first
// use: most calls send no notification.
type pipe struct {
	sink func(mcp.JSONRPCNotification)
	pool *fanout.Pool[fanout.Queue] // nil: a goroutine of the pipe's own

	mu      sync.Mutex
	ch      chan mcp.JSONRPCNotification
	slots   chan struct{} // one token per notification reserved and not yet consumed
	stop    chan struct{} // closed by close: reserve no longer waits
	pending int           // reserved and not yet received
	running bool          // a goroutine drains the pipe, or it is on the pool
	closed  bool
	drained sync.WaitGroup // the draining goroutine
}

// newPipe returns a pipe to sink, drained on pool (nil: on a goroutine of
// its own).
func newPipe(sink func(mcp.JSONRPCNotification), pool *fanout.Pool[fanout.Queue]) *pipe {
	return &pipe{sink: sink, pool: pool}
}

// makeLocked makes the channels if need be; the caller holds mu.
func (p *pipe) makeLocked() {
	if p.ch == nil {
		p.ch = make(chan mcp.JSONRPCNotification, pipeSize)
		p.slots = make(chan struct{}, pipeSize)
		p.stop = make(chan struct{})
		if p.closed { // a send after close: reserve does not wait
			close(p.stop)
		}
	}
}

// channel returns the channel mcp-go sends to.
func (p *pipe) channel() chan mcp.JSONRPCNotification {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.makeLocked()
	return p.ch
}

// reserve waits until the channel has room for one more notification, and
// makes sure a goroutine will take it out. Once the pipe is closed it
// returns at once: what is sent then may be dropped.
func (p *pipe) reserve() {
	p.mu.Lock()
	p.makeLocked()
	p.mu.Unlock()
	select {
	case p.slots <- struct{}{}:
	case <-p.stop:
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		select { // give the slot back: close drains what is there
		case <-p.slots:
		default:
		}
		return
	}
	p.pending++
	start := !p.running
	if start {
		p.running = true
		p.drained.Add(1)
	}
	p.mu.Unlock()
	switch {
	case !start:
	case p.pool != nil:
		p.pool.Push(p)
	default:
		go p.drain()
	}
}

// drain hands notifications to sink while any are reserved.
func (p *pipe) drain() {
	for p.Flush() {
	}
}

// Flush hands the next reserved notification to sink, and reports false
// once none is reserved (or the pipe is closed); it implements
// fanout.Queue.
func (p *pipe) Flush() (more bool) {
	p.mu.Lock()
	if p.pending == 0 || p.closed {
		p.running = false
		p.mu.Unlock()
		p.drained.Done()
		return false
	}
	p.mu.Unlock()
	var n mcp.JSONRPCNotification
	select {
	case n = <-p.ch: // reserved: its send follows the reservation at once
	case <-p.stop:
		return true // closed: the next round says so
	}
	<-p.slots
	p.mu.Lock()
	p.pending--
	p.mu.Unlock()
	p.sink(n)
	return true
}

// close stops the pipe: it waits for the draining goroutine, then hands what
// is left in the channel to sink on the caller's goroutine, so that
// everything sent before close is consumed, in order, when it returns.
func (p *pipe) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	if p.ch == nil { // never used: nothing to drain
		p.mu.Unlock()
		return
	}
	close(p.stop)
	p.mu.Unlock()
	p.drained.Wait()
	for {
		select {
		case n := <-p.ch:
			p.sink(n)
		default:
			return
		}
	}
}
