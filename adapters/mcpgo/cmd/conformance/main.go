// Command conformance serves an mcp-go server carrying the conformance
// fixtures (the same names and behaviour as examples/conformance, written
// for mcp-go) through mcpmount's transport and the mcpgo engine, for the
// MCP conformance suite (scripts/conformance.sh) and the interop tests
// (scripts/interop.sh), which run it as MCP_SERVER_BIN:
//
//	go build -o /tmp/mcpgo-conformance ./cmd/conformance
//	MCP_SERVER_BIN=/tmp/mcpgo-conformance scripts/conformance.sh
//
// Once the listener is up it prints one line, "listening on
// http://ADDR/mcp", with the actual address (useful with port 0). SIGINT
// or SIGTERM stops it.
package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpmount/mcpmount/adapters/mcpgo"
	"github.com/mcpmount/mcpmount/httptransport"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3000", "listen address (host:port; port 0 picks a free port)")
	token := flag.String("token", "", "if set, require the header \"Authorization: Bearer TOKEN\" on every request")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("mcpgo-conformance: ")

	// /mcp serves every era on one URL; /mcp-short serves the same
	// server with held streams ended every 300 ms, for the interop test
	// of clients whose streams the server ends.
	f := newFixtures()
	engine := mcpgo.NewEngine(f.srv, nil)
	f.engine = engine
	mux := http.NewServeMux()
	full := httptransport.New(engine, nil)
	short := httptransport.New(engine, &httptransport.Options{
		MaxStreamDuration: 300 * time.Millisecond,
		RetryInterval:     50 * time.Millisecond,
	})
	mux.Handle("/mcp", full)
	mux.Handle("/mcp-short", short)

	var handler http.Handler = mux
	if *token != "" {
		handler = requireBearer(*token, mux)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())

	select {
	case err := <-errc:
		log.Fatal(err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, h := range []*httptransport.Handler{full, short} {
		if err := h.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			log.Print(err)
		}
	}
	if err := hs.Shutdown(sctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		log.Print(err)
	}
	_ = hs.Close()
	_ = engine.Close()
}

// requireBearer refuses requests without the expected bearer token, so
// that the interop tests can check their clients send MCP_TOKEN.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpgo-conformance"`)
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
