package gosdk

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recoverPanics is SDK middleware that turns a panic in a handler (a tool,
// a prompt, a resource) into a -32603 error and a log line. The SDK runs
// handlers on its own goroutines, where a router's recovery middleware
// cannot reach, so without it one bad tool call ends the process.
func recoverPanics(logger *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					logger.Error("gosdk: handler panicked", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					res, err = nil, &gojsonrpc.Error{Code: gojsonrpc.CodeInternalError, Message: "internal error"}
				}
			}()
			return next(ctx, method, req)
		}
	}
}
