package httptransport

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// drainGroup counts the requests and calls in flight so Shutdown can wait
// for them; once closed it admits nothing new, which a sync.WaitGroup
// cannot promise when Add races Wait.
type drainGroup struct {
	mu     sync.Mutex
	n      int
	closed bool
	zero   chan struct{} // closed when n drops to 0 after close
}

// enter admits one more request or call, or reports false after close.
func (d *drainGroup) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.n++
	return true
}

// enterLate admits work that a request already in flight starts (a
// 2025-era call outliving its POST) even while closing.
func (d *drainGroup) enterLate() {
	d.mu.Lock()
	d.n++
	d.mu.Unlock()
}

func (d *drainGroup) exit() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n--
	if d.n == 0 && d.closed && d.zero != nil {
		close(d.zero)
		d.zero = nil
	}
}

// close stops admissions and returns a channel closed when nothing is in
// flight any more.
func (d *drainGroup) close() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	done := make(chan struct{})
	if d.n == 0 {
		close(done)
	} else {
		d.zero = done
	}
	return done
}

// serveEngine runs the engine on a call; a panic in the engine becomes a
// -32603 response and an error log, never a crashed process.
func (h *Handler) serveEngine(ctx context.Context, call *Call) (resp *jsonrpc.Message, err error) {
	if h.cfg.observer != nil {
		var end func(*jsonrpc.Message, error)
		ctx, end = h.observeCall(ctx, call)
		defer func() { end(resp, err) }() // after the recover below
	}
	defer func() {
		if p := recover(); p != nil {
			h.logError("mcp: engine panicked", "method", logval.String(call.Request.Method), "panic", logval.Bound(fmt.Sprint(p), logval.MaxErrLen), "stack", string(debug.Stack()))
			resp, err = jsonrpc.NewError(call.Request.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error")), nil
		}
	}()
	return h.engine.Serve(ctx, call)
}

// survive runs an engine callback that answers nothing (Notify, Reply): a
// panic in it is logged, as Serve's are, and the request goes on as if it
// had returned.
func (h *Handler) survive(what, method string, f func()) {
	defer func() {
		if p := recover(); p != nil {
			h.logError("mcp: engine panicked", "in", what, "method", logval.String(method), "panic", logval.Bound(fmt.Sprint(p), logval.MaxErrLen), "stack", string(debug.Stack()))
		}
	}()
	f()
}
