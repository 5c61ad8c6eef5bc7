// Command gin serves the demo MCP tools on gin: every protocol era
// (2026-07-28, 2025-era Streamable HTTP and 2024-11-05 HTTP+SSE) on one
// URL, /api/mcp, inside a route group with its own middleware.
//
//	go run ./examples/gin [-addr 127.0.0.1:8080] [-auth [-auth-key FILE]]
//
// With -auth every MCP request needs a bearer token. A development key
// pair is made at start-up, and a token for it printed with a curl line
// that uses it; the protected resource metadata (RFC 9728) is served at
// its well-known paths. That key, and so the token, lasts until the
// example stops. With -auth-key the key is kept in FILE (made on first
// use) and the issuer named after the endpoint, so that tokens stay valid
// across restarts on the same -addr.
package main

import (
	"context"
	"flag"
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
	keyFile := flag.String("auth-key", "", "with -auth: keep the signing key in this file (made on first use), so that tokens survive restarts")
	demo.RouterMain(func(ctx context.Context, ln net.Listener, withAuth bool, out io.Writer) error {
		return serve(ctx, ln, withAuth, *keyFile, out)
	})
}

// run serves on ln until ctx is done, writing the endpoint, the token and
// the request log to out; with auth, its key lasts as long as it runs.
func run(ctx context.Context, ln net.Listener, withAuth bool, out io.Writer) error {
	return serve(ctx, ln, withAuth, "", out)
}

// serve is run, with the signing key kept in keyFile when it is not empty.
func serve(ctx context.Context, ln net.Listener, withAuth bool, keyFile string, out io.Writer) error {
	const path = "/api/mcp"
	var g *guard
	if withAuth && keyFile != "" {
		var err error
		if g, err = keyFileGuard(ctx, demo.BaseURL(ln)+path, keyFile); err != nil {
			_ = ln.Close()
			return err
		}
		defer g.close()
	}
	app, err := demo.NewApp(ctx, ln, out, demo.Config{Name: "gin-example", Describe: describe, Path: path, Auth: withAuth && g == nil})
	if err != nil {
		return err
	}
	if app.Auth != nil {
		g = devGuard(app.Auth)
		fmt.Fprintln(out, "(the token stops working when the example stops; -auth-key FILE keeps the key)")
	} else if g != nil {
		fmt.Fprintf(out, "signing key: %s (tokens stay valid across restarts on this address)\nbearer token: %s\n", keyFile, g.token)
	}
	if g != nil {
		fmt.Fprintf(out, "try: %s\n", curlLine(app.URL, g.token))
	}

	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(gin.LoggerWithWriter(out), gin.Recovery())
	api := r.Group("/api", requestID())
	var endpoint http.Handler = app.Endpoint
	if g != nil {
		for _, p := range g.metadata.Paths {
			r.Match([]string{http.MethodGet, http.MethodHead, http.MethodOptions}, p, gin.WrapH(g.metadata.Handler))
		}
		// CORS in front of auth, so that browsers can read its challenges.
		endpoint = app.Endpoint.WithCORS(g.middleware(app.Endpoint))
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
