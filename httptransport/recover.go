package httptransport

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// serveEngine runs the engine on a call; a panic in the engine becomes a
// -32603 response and an error log, never a crashed process.
func (h *Handler) serveEngine(ctx context.Context, call *Call) (resp *jsonrpc.Message, err error) {
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
