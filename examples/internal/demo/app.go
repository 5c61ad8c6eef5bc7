package demo

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// App is what a router example mounts: the MCP endpoint of the demo
// server and, with -auth, the development authentication guarding it.
type App struct {
	// URL is the endpoint's URL, as clients reach it.
	URL string
	// Endpoint serves every protocol era; mount it at URL's path.
	Endpoint *httptransport.Handler
	// Auth is nil unless the example runs with -auth. Then its Middleware
	// belongs in front of Endpoint and its Metadata at its Metadata.Paths.
	Auth *DevAuth

	ln     net.Listener
	out    io.Writer
	engine *gosdk.Engine
}

// Config describes an App.
type Config struct {
	// Name names the demo server; Describe is its echo tool's view of the
	// router (see NewServer).
	Name     string
	Describe func(ctx context.Context) string
	// Path is where the router mounts the endpoint, such as /api/mcp.
	Path string
	// Auth turns development authentication on (the -auth flag).
	Auth bool
}

// NewApp makes the demo server and its endpoint, to be served on ln, and
// with c.Auth the development authentication, whose details it writes to
// out. If it fails, it closes ln.
func NewApp(ctx context.Context, ln net.Listener, out io.Writer, c Config) (*App, error) {
	a := &App{URL: BaseURL(ln) + c.Path, ln: ln, out: out}
	a.engine = gosdk.NewEngine(NewServer(c.Name, c.Describe), nil)
	a.Endpoint = httptransport.New(a.engine, &httptransport.Options{
		// What one caller may hold at once (per token subject; callers
		// without a token count as one): 429 past it.
		MaxCallsPerPrincipal:    64,
		MaxStreamsPerPrincipal:  16,
		MaxSessionsPerPrincipal: 64,
	})
	if !c.Auth {
		return a, nil
	}
	var err error
	if a.Auth, err = NewDevAuth(ctx, a.URL); err != nil {
		_ = a.engine.Close()
		_ = ln.Close()
		return nil, err
	}
	fmt.Fprintf(out, "dev issuer JWKS: %s\nmetadata: %s%s\nbearer token: %s\n", a.Auth.JWKSURL, BaseURL(ln), a.Auth.Metadata.Paths[0], a.Auth.Token)
	return a, nil
}

// Serve announces the endpoint and serves h, the router with the endpoint
// mounted, until ctx is done (see Serve); then it closes the auth and the
// engine.
func (a *App) Serve(ctx context.Context, h http.Handler) error {
	defer a.engine.Close()
	if a.Auth != nil {
		defer a.Auth.Close()
	}
	fmt.Fprintf(a.out, "MCP endpoint (all eras): %s\n", a.URL)
	return Serve(ctx, a.ln, h, a.Endpoint)
}
