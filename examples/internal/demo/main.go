package demo

import (
	"context"
	"flag"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
)

// RunFunc serves an example on ln until ctx is done, writing what it has
// to say (endpoints, tokens, the request log) to out.
type RunFunc func(ctx context.Context, ln net.Listener, out io.Writer) error

// RouterRun is the run function of a router example (gin, chi): a
// RunFunc that requires a bearer token if withAuth is set.
type RouterRun func(ctx context.Context, ln net.Listener, withAuth bool, out io.Writer) error

// RouterMain is Main for a router example: it adds the -auth flag, which
// turns development authentication (see NewApp) on.
func RouterMain(run RouterRun) {
	withAuth := flag.Bool("auth", false, "require a bearer token signed by a development key made at start-up")
	Main("listen address", func(ctx context.Context, ln net.Listener, out io.Writer) error {
		return run(ctx, ln, *withAuth, out)
	})
}

// Main defines the -addr flag, described by addrUsage, parses the command
// line, listens on -addr and calls run until SIGINT or SIGTERM, writing
// to standard output. It exits the process if listening or run fails.
func Main(addrUsage string, run RunFunc) {
	addr := flag.String("addr", "127.0.0.1:8080", addrUsage)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if err := run(ctx, ln, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
