package output

import (
	"net/http"
	"sync"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Relay is the output of a call whose messages travel on another
// stream: each member of a 2025-03-26 batch (forward, to the batch's one
// response) and each 2024-11-05 call (to its session's event stream). It
// has no HTTP response of its own: no status, headers, timers or event
// ids.
type Relay struct {
	cfg    *Config
	reqID  jsonrpc.ID
	sse    bool                             // the client takes events other than the answer
	relay  func(data []byte)                // where messages go
	last   func(data []byte, before func()) // where the answer goes, running before first; relay when nil
	before func()                           // see HoldPlace

	mu    sync.Mutex
	ended bool
	doneC chan struct{}
}

// NewRelay returns the output of the call reqID whose messages go to
// relay and its answer to last (relay when nil), which runs the function
// HoldPlace set before its write; sse is whether the client takes messages
// other than the answer.
func NewRelay(cfg *Config, reqID jsonrpc.ID, sse bool, relay func([]byte), last func([]byte, func())) *Relay {
	return &Relay{cfg: cfg, reqID: reqID, sse: sse, relay: relay, last: last, doneC: make(chan struct{})}
}

// HoldPlace has the call's place in its principal's quota given back by
// release just before its answer is written (a 2024-11-05 answer waits on
// the event stream behind writes to a client that may have stopped
// reading), or when the output ends without one.
func (o *Relay) HoldPlace(release func()) {
	o.mu.Lock()
	o.before = release
	o.mu.Unlock()
}

// Send relays a notification or server request of the call, when the
// client takes them.
func (o *Relay) Send(msg *jsonrpc.Message) error {
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

// Finish delivers the answer and ends the output.
func (o *Relay) Finish(resp *jsonrpc.Message) {
	data := answerBody(resp)
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

// Cut ends the output without an answer, but for a call Shutdown abandons,
// which gets ErrServerShutdown (see Stream.Cut).
func (o *Relay) Cut() {
	if o.cfg.Closing() && o.reqID.IsValid() {
		o.Finish(jsonrpc.NewError(o.reqID, ErrServerShutdown))
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.endLocked()
}

func (o *Relay) endLocked() {
	if !o.ended {
		o.ended = true
		close(o.doneC)
	}
}

// Done is closed when the output has ended.
func (o *Relay) Done() <-chan struct{} { return o.doneC }

// StartTimer does nothing: the stream relayed to has the timers.
func (o *Relay) StartTimer(*http.Request) {}

// AbortWrite does nothing: the stream relayed to owns the writes.
func (o *Relay) AbortWrite() {}

// StatusFor is the HTTP status an answer carrying e would go out with
// (see httptransport's CallOutcome.Status): 0 for a relayed call's, which
// goes out on another stream.
func (o *Relay) StatusFor(*jsonrpc.Error) int { return 0 }
