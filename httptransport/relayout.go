package httptransport

import (
	"net/http"
	"sync"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// output is where a call's messages and its answer go: a stream of its own
// that owns an HTTP response (stream), or another stream that it forwards
// to (relayOut: a batch member's, a 2024-11-05 call's).
type output interface {
	// send delivers a notification or a server request of the call.
	send(msg *jsonrpc.Message) error
	// finish delivers the answer and ends the output.
	finish(resp *jsonrpc.Message)
	// cut ends the output without an answer: the call was cancelled.
	cut()
	// done is closed when the output has ended.
	done() <-chan struct{}
	// startTimer arms what a response does while the call is silent.
	startTimer(r *http.Request)
	// abortWrite ends a write blocked on a client that stopped reading.
	abortWrite()
	// statusFor is the HTTP status an answer carrying e would go out
	// with, 0 when it goes out on another stream (observe.go).
	statusFor(e *jsonrpc.Error) int
}

// relayOut is the output of a call whose messages travel on another
// stream: each member of a 2025-03-26 batch (forward, to the batch's one
// response) and each 2024-11-05 call (to its session's event stream). It
// has no HTTP response of its own: no status, headers, timers or event
// ids.
type relayOut struct {
	h      *Handler
	reqID  jsonrpc.ID
	sse    bool                             // the client takes events other than the answer
	relay  func(data []byte)                // where messages go
	last   func(data []byte, before func()) // where the answer goes, running before first; relay when nil
	before func()                           // see holdPlace

	mu    sync.Mutex
	ended bool
	doneC chan struct{}
}

// newRelayOut returns the output of the call reqID whose messages go to
// relay and its answer to last (relay when nil), which runs the function
// holdPlace set before its write; sse is whether the client takes messages
// other than the answer.
func (h *Handler) newRelayOut(reqID jsonrpc.ID, sse bool, relay func([]byte), last func([]byte, func())) *relayOut {
	return &relayOut{h: h, reqID: reqID, sse: sse, relay: relay, last: last, doneC: make(chan struct{})}
}

// holdPlace has the call's place in its principal's quota given back by
// release just before its answer is written (a 2024-11-05 answer waits on
// the event stream behind writes to a client that may have stopped
// reading), or when the output ends without one.
func (o *relayOut) holdPlace(release func()) {
	o.mu.Lock()
	o.before = release
	o.mu.Unlock()
}

func (o *relayOut) send(msg *jsonrpc.Message) error {
	data, err := msg.Encode()
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.ended:
		return ErrStreamClosed
	case !o.sse && msg.IsRequest():
		return ErrNoStream
	case !o.sse:
		return nil // only the answer reaches a client that takes JSON
	}
	o.relay(data)
	return nil
}

func (o *relayOut) finish(resp *jsonrpc.Message) {
	data, err := resp.Encode()
	if err != nil {
		data = errorBody(resp.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding response: "+err.Error()))
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.ended {
		return
	}
	if o.last != nil {
		o.last(data, o.before)
	} else {
		o.relay(data)
	}
	o.endLocked()
}

// cut ends the output without an answer, but for a call Shutdown abandons,
// which gets errServerShutdown (see stream.cut).
func (o *relayOut) cut() {
	if o.h.closing.Load() && o.reqID.IsValid() {
		o.finish(jsonrpc.NewError(o.reqID, errServerShutdown))
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLocked()
}

func (o *relayOut) endLocked() {
	if !o.ended {
		o.ended = true
		close(o.doneC)
	}
}

func (o *relayOut) done() <-chan struct{} { return o.doneC }

// startTimer does nothing: the stream relayed to has the timers.
func (o *relayOut) startTimer(*http.Request) {}

// abortWrite does nothing: the stream relayed to owns the writes.
func (o *relayOut) abortWrite() {}
