package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
)

// errUsage is a command line that could not be parsed (the flag package
// has said why).
var errUsage = errors.New("usage")

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

// stdioFlags are the flags of "mcpmount stdio".
type stdioFlags struct {
	addr, path, dir, logLevel string
	env, origins, hosts       listFlag
	auth                      authConfig
	perSession, stateless     bool

	maxBody                       int64
	maxCalls, maxSessions         int
	maxSessionsPer, maxStreamsPer int
	idle, stopTimeout, drain      time.Duration
	maxLine, maxChildren          int
}

func parseStdio(args []string, stderr io.Writer) (*stdioFlags, []string, error) {
	f := &stdioFlags{}
	fs := flag.NewFlagSet("mcpmount stdio", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: mcpmount stdio [flags] -- <command> [args...]\n\nServes the stdio MCP server <command> over HTTP, every protocol era on one URL.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen address, host:port (port 0 picks a free one)")
	fs.StringVar(&f.path, "path", "/mcp", "URL path of the MCP endpoint")
	fs.StringVar(&f.dir, "dir", "", "working directory of the command (default: this one's)")
	fs.Var(&f.env, "env", "KEY=VALUE added to the command's environment (repeatable)")
	fs.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.BoolVar(&f.perSession, "child-per-session", false, "run one child per 2025-era session, so that its sampling, elicitation and roots requests reach that session's client (default: one shared child, which gets no such capabilities)")
	fs.BoolVar(&f.stateless, "stateless", false, "serve 2025-era clients without sessions")
	fs.Var(&f.origins, "allowed-origin", "browser origin allowed to call the endpoint (repeatable; default: loopback origins)")
	fs.Var(&f.hosts, "allowed-host", "extra Host header accepted on a loopback listener (repeatable)")

	fs.StringVar(&f.auth.tokenFile, "token-file", "", "require \"Authorization: Bearer TOKEN\" with the token in this file (development)")
	fs.StringVar(&f.auth.jwksURL, "jwks-url", "", "JWT auth: the authorization server's JWKS URL")
	fs.StringVar(&f.auth.issuer, "issuer", "", "JWT auth: the tokens' issuer")
	fs.StringVar(&f.auth.audience, "audience", "", "JWT auth: this endpoint's canonical URL, the tokens' audience")
	fs.StringVar(&f.auth.scopes, "scopes", "", "scopes every request needs, comma-separated")

	fs.Int64Var(&f.maxBody, "max-body-bytes", 0, "bound on a POST body (default 4 MiB)")
	fs.IntVar(&f.maxCalls, "max-calls-per-principal", 0, "bound on one principal's calls in flight (default: the transport's)")
	fs.IntVar(&f.maxSessions, "max-sessions", 0, "bound on sessions open (default: the transport's)")
	fs.IntVar(&f.maxSessionsPer, "max-sessions-per-principal", 0, "bound on one principal's sessions (default: the transport's)")
	fs.IntVar(&f.maxStreamsPer, "max-streams-per-principal", 0, "bound on one principal's open streams (default: the transport's)")
	fs.DurationVar(&f.idle, "session-idle-timeout", 0, "end sessions idle this long (default 10m)")
	fs.IntVar(&f.maxChildren, "max-session-children", 0, "with --child-per-session, bound on the sessions' children running at once (default 32)")
	fs.IntVar(&f.maxLine, "max-line-bytes", 0, "bound on one message line from the child (default 16 MiB)")
	fs.DurationVar(&f.stopTimeout, "stop-timeout", 0, "wait after closing the child's stdin, and after SIGTERM (default 5s)")
	fs.DurationVar(&f.drain, "shutdown-timeout", 10*time.Second, "how long a shutdown lets calls in flight finish")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, nil, nil
		}
		return nil, nil, errUsage
	}
	command := fs.Args()
	if len(command) == 0 {
		fs.Usage()
		return nil, nil, errUsage
	}
	if !strings.HasPrefix(f.path, "/") {
		return nil, nil, fmt.Errorf("--path %q must start with /", f.path)
	}
	if f.path == healthPath {
		return nil, nil, fmt.Errorf("--path %s is the health check's", healthPath)
	}
	return f, command, nil
}

// runStdio serves the child until ctx ends.
func runStdio(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, command, err := parseStdio(args, stderr)
	if err != nil || f == nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))

	var g *guard
	if f.auth.enabled() {
		if g, err = newGuard(ctx, &f.auth, logger); err != nil {
			return err
		}
		defer g.close()
	} else if f.auth.scopes != "" {
		return errors.New("--scopes needs --token-file or the JWT flags")
	}

	engine, err := startEngine(ctx, f, command, logger)
	if err != nil {
		return err
	}
	defer engine.Close()

	h := httptransport.New(engine, &httptransport.Options{
		Logger: logger, MaxBodyBytes: f.maxBody, Stateless: f.stateless,
		AllowedOrigins: f.origins, AllowedHosts: f.hosts,
		MaxCallsPerPrincipal: f.maxCalls, MaxSessions: f.maxSessions,
		MaxSessionsPerPrincipal: f.maxSessionsPer, MaxStreamsPerPrincipal: f.maxStreamsPer,
		SessionIdleTimeout: f.idle,
	})
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		_ = h.Shutdown(context.Background())
		return err
	}
	fmt.Fprintf(stdout, "listening on http://%s%s\n", ln.Addr(), f.path)
	return serve(ctx, ln, h, g, f, logger) // engine.Close (deferred) then stops the child
}

// startEngine starts the child, command, as the flags say, allowing it a
// minute to answer initialize.
func startEngine(ctx context.Context, f *stdioFlags, command []string, logger *slog.Logger) (*stdio.Engine, error) {
	cmd := stdio.Command{Path: command[0], Args: command[1:], Dir: f.dir}
	if len(f.env) > 0 {
		cmd.Env = append(os.Environ(), f.env...)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	return stdio.New(ctx, cmd, &stdio.Options{
		Logger: logger, ChildPerSession: f.perSession, MaxSessionChildren: f.maxChildren,
		MaxLineBytes: f.maxLine, StopTimeout: f.stopTimeout,
	})
}

// newMux serves h at path, behind g's middleware and with g's metadata
// when auth is on (g not nil).
func newMux(path string, h *httptransport.Handler, g *guard) *http.ServeMux {
	mux := http.NewServeMux()
	var endpoint http.Handler = h
	if g != nil {
		endpoint = h.WithCORS(g.middleware(h))
		if g.metadata != nil {
			for _, p := range g.metadata.Paths {
				mux.Handle(p, g.metadata.Handler)
			}
		}
	}
	mux.Handle(path, endpoint)
	return mux
}

// shutdown stops h, letting calls in flight finish for up to drain, then
// the HTTP server. The command logs through log, as the packages do: each
// kind of line bounded, errors quoted.
func shutdown(log *logval.Logger, h *httptransport.Handler, hs *http.Server, drain time.Duration) {
	log.Info("mcpmount: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := h.Shutdown(sctx); err != nil {
		log.Warn("mcpmount: calls still running at the shutdown deadline were cancelled", "error", logval.Err(err))
	}
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
}
