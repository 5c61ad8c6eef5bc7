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
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"

	"github.com/gin-gonic/gin"

	ginmcp "github.com/mcpmount/mcpmount/adapters/gin"
	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/examples/internal/demo"
	"github.com/mcpmount/mcpmount/httptransport"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	withAuth := flag.Bool("auth", false, "require a bearer token signed by a development key made at start-up")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(ctx, ln, *withAuth, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run serves on ln until ctx is done, writing the endpoint, the token and
// the request log to out.
func run(ctx context.Context, ln net.Listener, withAuth bool, out io.Writer) error {
	endpointURL := demo.BaseURL(ln) + "/api/mcp"
	engine := gosdk.NewEngine(demo.NewServer("gin-example", describe), nil)
	defer engine.Close()
	endpoint := httptransport.New(engine, nil)

	gin.SetMode(gin.ReleaseMode)
	r := gin.New()
	r.Use(gin.LoggerWithWriter(out), gin.Recovery())
	api := r.Group("/api", requestID())
	if withAuth {
		a, err := demo.NewDevAuth(ctx, endpointURL)
		if err != nil {
			_ = ln.Close()
			return err
		}
		defer a.Close()
		for _, p := range a.MetadataPaths {
			r.Match([]string{http.MethodGet, http.MethodHead, http.MethodOptions}, p, gin.WrapH(a.Metadata))
		}
		api.Use(ginmcp.Middleware(a.Middleware)) // net/http middleware, run as gin middleware
		fmt.Fprintf(out, "dev issuer JWKS: %s\nmetadata: %s%s\nbearer token: %s\n", a.JWKSURL, demo.BaseURL(ln), a.MetadataPaths[0], a.Token)
	}
	ginmcp.Mount(api, "/mcp", endpoint)
	fmt.Fprintf(out, "MCP endpoint (all eras): %s\n", endpointURL)
	return demo.Serve(ctx, ln, r, endpoint)
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
