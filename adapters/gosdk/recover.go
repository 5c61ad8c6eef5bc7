package gosdk

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// recoverPanics is SDK middleware that turns a panic in a handler (a tool,
// a prompt, a resource) into a -32603 error and a log line. The SDK runs
// handlers on its own goroutines, where a router's recovery middleware
// cannot reach, so without it one bad tool call ends the process. The
// panic's value, which may hold a call's arguments, is logged cut to 256
// bytes and quoted, and through log's bound of lines a minute: a client
// calling a tool that panics on every call must not flood the log.
func recoverPanics(log *logval.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					log.Log(context.WithoutCancel(ctx), slog.LevelError, "gosdk: handler panicked", "method", logval.String(method), "panic", logval.Bound(fmt.Sprint(p), logval.MaxErrLen), "stack", string(debug.Stack()))
					res, err = nil, &gojsonrpc.Error{Code: gojsonrpc.CodeInternalError, Message: "internal error"}
				}
			}()
			return next(ctx, method, req)
		}
	}
}
