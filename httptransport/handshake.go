package httptransport

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Why a pending handshake ended before its engine answered: each becomes
// the initialize request's JSON-RPC error (handshakeError).
var (
	errHandshakeTimeout = errors.New("httptransport: handshake deadline passed")
	errHandshakeEvicted = errors.New("httptransport: pending handshake evicted")
)

// handshakes are the 2025-era initialize requests this instance is
// serving whose engine has not answered yet. Each holds a new session's
// places in the session bounds from the start (admitNewSession), so a
// pending handshake can be ended to make room, as an idle session can: a
// handshake an engine never answers would otherwise hold its places until
// its deadline (Options.HandshakeTimeout).
type handshakes struct {
	mu  sync.Mutex
	set map[*handshake]struct{}
}

// handshake is one pending initialize: the address pool it counts in
// (sessionAddr), when it started, what ends it, and a channel closed once
// it has given back its places or become a session.
type handshake struct {
	addr    string
	started time.Time
	cancel  context.CancelCauseFunc
	done    chan struct{}
	claimed bool // ended by oldest's caller: no other picks it
}

// begin returns the context an initialize's engine runs on, and the
// handshake registered for it. The context keeps r's values but not its
// cancellation (a handshake outlives a dropped POST, as a session call
// does), and ends at the handshake deadline, when the handler closes
// (parent), or when evicted; end must be called once the engine answered
// and the places were kept or given back.
func (p *handshakes) begin(r *http.Request, parent context.Context, addr string, timeout time.Duration) (context.Context, *handshake) {
	ctx, cancel := context.WithCancelCause(context.WithoutCancel(r.Context()))
	stopTimer := func() bool { return false }
	if timeout > 0 {
		t := time.AfterFunc(timeout, func() { cancel(errHandshakeTimeout) })
		stopTimer = t.Stop
	}
	stopParent := context.AfterFunc(parent, func() { cancel(errClosing) })
	hs := &handshake{addr: addr, started: time.Now(), done: make(chan struct{}), cancel: func(cause error) {
		stopTimer()
		stopParent()
		cancel(cause)
	}}
	p.mu.Lock()
	if p.set == nil {
		p.set = make(map[*handshake]struct{})
	}
	p.set[hs] = struct{}{}
	p.mu.Unlock()
	return ctx, hs
}

// end forgets hs and releases its context's resources.
func (p *handshakes) end(hs *handshake) {
	p.mu.Lock()
	delete(p.set, hs)
	p.mu.Unlock()
	hs.cancel(context.Canceled)
	close(hs.done)
}

// oldest claims the handshake pending the longest in the instance's pool,
// or in addr's when byAddr is set; nil when none is pending there.
func (p *handshakes) oldest(byAddr bool, addr string) *handshake {
	p.mu.Lock()
	defer p.mu.Unlock()
	var found *handshake
	for hs := range p.set {
		if hs.claimed || byAddr && hs.addr != addr {
			continue
		}
		if found == nil || hs.started.Before(found.started) {
			found = hs
		}
	}
	if found != nil {
		found.claimed = true
	}
	return found
}

// evict ends a handshake that oldest claimed and waits until it has given
// back its places, or ctx ends.
func (hs *handshake) evict(ctx context.Context) {
	hs.cancel(errHandshakeEvicted)
	select {
	case <-hs.done:
	case <-ctx.Done():
	}
}

// handshakeError is the answer to an initialize whose context ended before
// its engine answered: ours to choose, as the spec names no deadline for
// the handshake (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#timeouts
// asks that requests have one). The client may try again.
func handshakeError(cause error) *jsonrpc.Error {
	switch {
	case errors.Is(cause, errHandshakeTimeout):
		return jsonrpc.Errorf(jsonrpc.CodeServerError, "the server did not complete the handshake in time; try again")
	case errors.Is(cause, errHandshakeEvicted):
		return jsonrpc.Errorf(jsonrpc.CodeServerError, "the handshake was ended to make room for another session; try again")
	}
	return output.ErrServerShutdown
}
