// Command mcpmount serves an MCP server over HTTP, with every protocol era
// (2026-07-28, 2025-era Streamable HTTP, 2024-11-05 HTTP+SSE) on one URL,
// bearer-token auth and limits.
//
//	go install github.com/mcpmount/mcpmount/cmd/mcpmount@latest   # or, in a clone: go build ./cmd/mcpmount
//	mcpmount stdio [flags] -- <command> [args...]
//
// "mcpmount stdio" runs a stdio MCP server as a child process (package
// adapters/stdio) and prints "listening on http://HOST:PORT/PATH" once it
// serves. GET /healthz answers 200 while it serves and 503 once it shuts
// down. SIGINT or SIGTERM stops it gracefully: the HTTP streams end, calls
// in flight get a moment, and the child is stopped (stdin closed, then
// SIGTERM, then SIGKILL).
//
// Run "mcpmount stdio -h" for the flags.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if err != errUsage {
			fmt.Fprintln(os.Stderr, "mcpmount:", err)
		}
		os.Exit(2)
	}
}

// run dispatches a subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		usage(stderr)
		return errUsage
	}
	switch args[0] {
	case "stdio":
		return runStdio(ctx, args[1:], stdout, stderr)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	}
	usage(stderr)
	return errUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: mcpmount stdio [flags] -- <command> [args...]

Serves a stdio MCP server over HTTP. Run "mcpmount stdio -h" for the flags.
`)
}
