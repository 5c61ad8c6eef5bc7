// Command gin serves the demo MCP tools on gin: every protocol era
// (2026-07-28, 2025-era Streamable HTTP and 2024-11-05 HTTP+SSE) on one
// URL, /api/mcp, inside a route group with its own middleware.
//
//	go run ./examples/gin [-addr 127.0.0.1:8080] [-auth]
//
// With -auth every MCP request needs a bearer token. A development key
// pair is made at start-up and a token for it printed; the protected
// resource metadata (RFC 9728) is served at its well-known paths.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/gin-gonic/gin"

	ginmcp "github.com/mcpmount/mcpmount/adapters/gin"
	"github.com/mcpmount/mcpmount/examples/internal/demo"
)

func main() {
	demo.RouterMain(run)
}

// run serves on ln until ctx is done, writing the endpoint, the token and
// the request log to out.
func run(ctx context.Context, ln net.Listener, withAuth bool, out io.Writer) error {
	app, err := demo.NewApp(ctx, ln, out, demo.Config{Name: "gin-example", Describe: describe, Path: "/api/mcp", Auth: withAuth})
	if err != nil {
		return err
	}

	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(gin.LoggerWithWriter(out), gin.Recovery())
	api := r.Group("/api", requestID())
	var endpoint http.Handler = app.Endpoint
	if app.Auth != nil {
		for _, p := range app.Auth.MetadataPaths {
			r.Match([]string{http.MethodGet, http.MethodHead, http.MethodOptions}, p, gin.WrapH(app.Auth.Metadata))
		}
		// CORS in front of auth, so that browsers can read its challenges.
		endpoint = app.Endpoint.WithCORS(app.Auth.Middleware(app.Endpoint))
	}
	ginmcp.Mount(api, "/mcp", endpoint)
	return app.Serve(ctx, r)
}

// requestID numbers requests under a gin key that tools read back.
func requestID() gin.HandlerFunc {
	var n atomic.Int64
	return func(c *gin.Context) {
		c.Set("request_id", strconv.FormatInt(n.Add(1), 10))
		c.Next()
	}
}

// describe is what the echo tool reports of the gin request behind a call.
func describe(ctx context.Context) string {
	c, ok := ginmcp.FromContext(ctx)
	if !ok {
		return "no gin context"
	}
	return fmt.Sprintf("gin route %s, request_id %s", c.FullPath(), c.GetString("request_id"))
}
