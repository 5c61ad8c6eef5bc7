// Command chi serves the demo MCP tools on chi: every protocol era
// (2026-07-28, 2025-era Streamable HTTP and 2024-11-05 HTTP+SSE) on one
// URL, /api/mcp, inside a sub-router with common chi middleware.
//
//	go run ./examples/chi [-addr 127.0.0.1:8080] [-auth]
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
	"syscall"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	chimcp "github.com/mcpmount/mcpmount/adapters/chi"
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
	engine := gosdk.NewEngine(demo.NewServer("chi-example", describe), nil)
	defer engine.Close()
	endpoint := httptransport.New(engine, nil)

	r := chi.NewRouter()
	logger := &middleware.DefaultLogFormatter{Logger: log.New(out, "", log.LstdFlags), NoColor: true}
	r.Use(middleware.RequestID, middleware.RequestLogger(logger), middleware.Recoverer)
	var requireBearer func(http.Handler) http.Handler
	if withAuth {
		a, err := demo.NewDevAuth(ctx, endpointURL)
		if err != nil {
			_ = ln.Close()
			return err
		}
		defer a.Close()
		for _, p := range a.MetadataPaths {
			r.Handle(p, a.Metadata)
		}
		requireBearer = a.Middleware
		fmt.Fprintf(out, "dev issuer JWKS: %s\nmetadata: %s%s\nbearer token: %s\n", a.JWKSURL, demo.BaseURL(ln), a.MetadataPaths[0], a.Token)
	}
	r.Route("/api", func(r chi.Router) {
		r.Use(middleware.Compress(5)) // compresses JSON, leaves event streams alone
		r.Group(func(r chi.Router) {
			if requireBearer != nil {
				r.Use(requireBearer) // auth middleware is native chi middleware
			}
			chimcp.Mount(r, "/mcp", endpoint) // outside Timeout: streams live long
		})
		r.With(middleware.Timeout(5*time.Second)).Get("/health", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "ok\n")
		})
	})
	fmt.Fprintf(out, "MCP endpoint (all eras): %s\n", endpointURL)
	return demo.Serve(ctx, ln, r, endpoint)
}

// describe is what the echo tool reports of the chi request behind a call.
func describe(ctx context.Context) string {
	pattern := ""
	if rc := chi.RouteContext(ctx); rc != nil {
		pattern = rc.RoutePattern()
	}
	return fmt.Sprintf("chi route %s, request id %s", pattern, middleware.GetReqID(ctx))
}
