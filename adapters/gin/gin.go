// Package ginmcp mounts an MCP endpoint on gin.
//
// The endpoint is an http.Handler, usually from httptransport.New, that
// serves every protocol era on one URL. Mount registers it on a
// *gin.Engine or a *gin.RouterGroup for every method gin's Any routes, so gin
// middleware registered before it (logging, recovery, CORS, auth) runs on
// every MCP request:
//
//	r := gin.New()
//	api := r.Group("/api", gin.Logger(), gin.Recovery())
//	h := httptransport.New(engine, nil)
//	ginmcp.Mount(api, "/mcp", h.WithCORS(auth.RequireBearer(verifier, authOpts)(h)))
//
// (Auth as gin middleware, ginmcp.Middleware(auth.RequireBearer(...)),
// works too, but its challenges then go out before the endpoint's CORS
// headers are set, and browsers cannot read them.)
//
// Tool handlers reach the request's *gin.Context, and so the keys earlier
// middleware set, through FromContext on the context they are given:
//
//	func handle(ctx context.Context, req *mcp.CallToolRequest, in Args) (*mcp.CallToolResult, any, error) {
//		if c, ok := ginmcp.FromContext(ctx); ok {
//			tenant := c.GetString("tenant")
//			...
//		}
//	}
//
// # What the stored context is
//
// gin recycles a *gin.Context as soon as its handler returns, but an MCP
// call can outlive the HTTP request that carried it: a 2024-11-05 POST is
// answered 202 before the tool runs, and a 2025-era call keeps running
// when its client drops the connection (only notifications/cancelled or
// the end of the session cancel it). So the context FromContext returns is
// a copy made with (*gin.Context).Copy when the request reached the
// endpoint. It is safe to keep and to use from any goroutine for as long
// as the call runs. It holds the request (its header, URL and context),
// the keys set by earlier middleware, the route parameters and the full
// path. It holds no response writer: a tool handler must not write to
// c.Writer, and answers only through its MCP result. Keys set on the copy
// are not seen by the original.
//
// # Streaming
//
// The transport flushes every SSE event through http.ResponseController,
// which reaches net/http's writer through gin's ResponseWriter (it has
// Flush and Unwrap), so events are never held back by gin. gin.Logger
// logs a call's stream when it ends, with its whole lifetime as its
// latency; a held stream (a listen, a GET stream, a 2024-11-05 stream) on
// HTTP/1.x is logged when the transport takes its connection over, right
// after its headers (httptransport.Options.DisableHijack keeps the old
// way). gin.Recovery recovers panics on the request's goroutine only, and
// go-sdk runs tool handlers on goroutines of its own: adapters/gosdk
// recovers those (a panicking handler answers -32603 and is logged)
// unless its Options.KeepPanics is set.
package ginmcp

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"
)

// Mount registers h at relativePath on r for the methods gin's Any routes
// (GET, POST, PUT, PATCH, HEAD, OPTIONS, DELETE, CONNECT, TRACE) and
// returns r. The transport serves POST, GET, DELETE and OPTIONS on that
// one URL and answers the others with 405 and Allow itself; a method gin
// does not route (PROPFIND, say) gets gin's own 404. r is a *gin.Engine or
// a *gin.RouterGroup; the middleware registered on it runs first.
//
// The 2024-11-05 endpoint event names the URL as the client requested it,
// so the endpoint works under any group prefix without configuration.
func Mount(r gin.IRoutes, relativePath string, h http.Handler) gin.IRoutes {
	return r.Any(relativePath, Handler(h))
}

// Handler returns a gin handler that serves h with a copy of the
// *gin.Context in the request's context, for FromContext.
func Handler(h http.Handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		cp := c.Copy()
		r := c.Request.WithContext(context.WithValue(c.Request.Context(), contextKey{}, cp))
		cp.Request = r
		c.Request = r
		h.ServeHTTP(c.Writer, r)
	}
}

type contextKey struct{}

// FromContext returns the copy of the *gin.Context stored by Handler (and
// Mount) in ctx or any context derived from it, such as the context of a
// go-sdk tool handler. The copy stays valid after the HTTP request ends;
// see the package documentation for what it holds.
func FromContext(ctx context.Context) (*gin.Context, bool) {
	c, ok := ctx.Value(contextKey{}).(*gin.Context)
	return c, ok
}

// Middleware adapts net/http middleware, such as auth.RequireBearer, to a
// gin handler. When mw calls its next handler, the request it passes on
// (with the values mw added to its context, and its body) replaces
// c.Request and the rest of the gin chain runs; when mw answers the
// request itself, the chain is aborted.
//
// The ResponseWriter mw passes on is not carried into the gin chain, which
// keeps writing to c.Writer. Middleware that wraps the ResponseWriter
// (compression, for instance) belongs around the endpoint instead:
// Mount(r, path, mw(h)).
func Middleware(mw func(http.Handler) http.Handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		called := false
		mw(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			called = true
			c.Request = r
			c.Next()
		})).ServeHTTP(c.Writer, c.Request)
		if !called {
			c.Abort()
		}
	}
}
