package mcpgo

import (
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
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
// sink, in order, while there are any; an idle pipe has none.
type pipe struct {
	ch    chan mcp.JSONRPCNotification
	slots chan struct{} // one token per notification reserved and not yet consumed
	stop  chan struct{} // closed by close: reserve no longer waits
	sink  func(mcp.JSONRPCNotification)

	mu      sync.Mutex
	pending int  // reserved and not yet received
	running bool // a drain goroutine runs
	closed  bool
	drained sync.WaitGroup // the drain goroutine
}

func newPipe(sink func(mcp.JSONRPCNotification)) *pipe {
	return &pipe{
		ch:    make(chan mcp.JSONRPCNotification, pipeSize),
		slots: make(chan struct{}, pipeSize),
		stop:  make(chan struct{}),
		sink:  sink,
	}
}

// reserve waits until the channel has room for one more notification, and
// makes sure a goroutine will take it out. Once the pipe is closed it
// returns at once: what is sent then may be dropped.
func (p *pipe) reserve() {
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
	if !p.running {
		p.running = true
		p.drained.Add(1)
		go p.drain()
	}
	p.mu.Unlock()
}

// drain hands notifications to sink while any are reserved.
func (p *pipe) drain() {
	defer p.drained.Done()
	for {
		p.mu.Lock()
		if p.pending == 0 || p.closed {
			p.running = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
		var n mcp.JSONRPCNotification
		select {
		case n = <-p.ch: // reserved: its send follows the reservation at once
		case <-p.stop:
			continue
		}
		<-p.slots
		p.mu.Lock()
		p.pending--
		p.mu.Unlock()
		p.sink(n)
	}
}

// close stops the pipe: it waits for the drain goroutine, then hands what
// is left in the channel to sink on the caller's goroutine, so that
// everything sent before close is consumed, in order, when it returns.
func (p *pipe) close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
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
