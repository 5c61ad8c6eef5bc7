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
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	chimcp "github.com/mcpmount/mcpmount/adapters/chi"
	"github.com/mcpmount/mcpmount/examples/internal/demo"
)

func main() {
	demo.RouterMain(run)
}

// run serves on ln until ctx is done, writing the endpoint, the token and
// the request log to out.
func run(ctx context.Context, ln net.Listener, withAuth bool, out io.Writer) error {
	app, err := demo.NewApp(ctx, ln, out, demo.Config{Name: "chi-example", Describe: describe, Path: "/api/mcp", Auth: withAuth})
	if err != nil {
		return err
	}

	r := chi.NewRouter()
	logger := &middleware.DefaultLogFormatter{Logger: log.New(out, "", log.LstdFlags), NoColor: true}
	r.Use(middleware.RequestID, middleware.RequestLogger(logger), middleware.Recoverer)
	if app.Auth != nil {
		for _, p := range app.Auth.Metadata.Paths {
			r.Handle(p, app.Auth.Metadata.Handler)
		}
	}
	r.Route("/api", func(r chi.Router) {
		r.Use(middleware.Compress(5)) // compresses JSON, leaves event streams alone
		var endpoint http.Handler = app.Endpoint
		if app.Auth != nil {
			// CORS in front of auth, so that browsers can read its challenges.
			endpoint = app.Endpoint.WithCORS(app.Auth.Middleware(app.Endpoint))
		}
		chimcp.Mount(r, "/mcp", endpoint) // outside Timeout: streams live long
		r.With(middleware.Timeout(5*time.Second)).Get("/health", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "ok\n")
		})
	})
	return app.Serve(ctx, r)
}

// describe is what the echo tool reports of the chi request behind a call.
func describe(ctx context.Context) string {
	pattern := ""
	if rc := chi.RouteContext(ctx); rc != nil {
		pattern = rc.RoutePattern()
	}
	return fmt.Sprintf("chi route %s, request id %s", pattern, middleware.GetReqID(ctx))
}
