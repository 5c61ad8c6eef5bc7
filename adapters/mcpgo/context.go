package mcpgo

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// callKey carries what the engine knows of a call into mcp-go's handlers.
type callKey struct{}

type callInfo struct {
	header    http.Header
	sessionID string

	mu  sync.Mutex
	err *jsonrpc.Error // returned by a handler (see keepError)
}

// callContext is the context mcp-go handles a request in: the call's, with
// the call's callInfo under callKey. It is context.WithValue's and the
// callInfo's allocations in one; everything else goes to the call's
// context (Done, and so cancellation, with no goroutine of context's).
type callContext struct {
	context.Context
	info callInfo
}

// Value implements context.Context.
func (c *callContext) Value(key any) any {
	if key == (callKey{}) {
		return &c.info
	}
	return c.Context.Value(key)
}

// keepError records err's *jsonrpc.Error, if it wraps one, so that the
// call's -32603 becomes that error. mcp-go turns every error a tool,
// prompt or resource handler returns into -32603 internal error, which
// leaves a handler no way to answer -32602 or 2026-07-28's -32021.
func keepError(ctx context.Context, err error) {
	if err == nil {
		return // je, which escapes, is not made for the common case
	}
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return
	}
	if ci, ok := ctx.Value(callKey{}).(*callInfo); ok {
		ci.mu.Lock()
		ci.err = je
		ci.mu.Unlock()
	}
}

// handlerError returns the error a handler of the call returned, if any
// wrapped a *jsonrpc.Error.
func (ci *callInfo) handlerError() *jsonrpc.Error {
	ci.mu.Lock()
	defer ci.mu.Unlock()
	return ci.err
}

// SessionID returns the mcpmount session id (the Mcp-Session-Id of a
// 2025-era client, the sessionId of a 2024-11-05 one) of the request a
// handler serves, or "" for 2026-07-28 and stateless requests. The
// ClientSession mcp-go puts in the context has an id of its own for every
// call (mcp-go keys its in-flight requests by session id and request id);
// per-session tools and resources (MCPServer.AddSessionTool and the like)
// and SendNotificationToSpecificClient take this id.
func SessionID(ctx context.Context) string {
	if ci, ok := ctx.Value(callKey{}).(*callInfo); ok {
		return ci.sessionID
	}
	return ""
}

// Header returns the HTTP header of the request a handler serves, or nil.
// The engine also puts it in the Header field of the requests of tool,
// prompt and resource handlers, which mcp-go fills only from its own HTTP
// servers.
func Header(ctx context.Context) http.Header {
	if ci, ok := ctx.Value(callKey{}).(*callInfo); ok {
		return ci.header
	}
	return nil
}

// installMiddleware adds the middleware that fills the requests' Header
// for tool, prompt and resource handlers, and keeps the *jsonrpc.Error
// they return (keepError). mcp-go fills Header from an unexported context
// key that only its own HTTP servers set; middleware is its supported way
// to change a request before the handler. Middleware added before
// NewEngine runs first and sees the field still empty.
func installMiddleware(srv *server.MCPServer) {
	srv.Use(func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Header) == 0 {
				if h := Header(ctx); h != nil {
					req.Header = h
				}
			}
			res, err := next(ctx, req)
			keepError(ctx, err)
			return res, err
		}
	})
	server.WithPromptHandlerMiddleware(func(next server.PromptHandlerFunc) server.PromptHandlerFunc {
		return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if len(req.Header) == 0 {
				if h := Header(ctx); h != nil {
					req.Header = h
				}
			}
			res, err := next(ctx, req)
			keepError(ctx, err)
			return res, err
		}
	})(srv)
	server.WithResourceHandlerMiddleware(func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
		return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			if len(req.Header) == 0 {
				if h := Header(ctx); h != nil {
					req.Header = h
				}
			}
			res, err := next(ctx, req)
			keepError(ctx, err)
			return res, err
		}
	})(srv)
}
