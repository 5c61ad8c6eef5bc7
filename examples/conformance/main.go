// Command conformance serves the conformance fixtures (package fixtures) over
// HTTP, for the MCP conformance suite (scripts/conformance.sh) and the interop
// tests (interop/, scripts/interop.sh).
//
//	go run ./examples/conformance -addr 127.0.0.1:0
//
// Once the listener is up it prints one line, "listening on http://ADDR/mcp",
// with the actual address (useful with port 0). SIGINT or SIGTERM stops it.
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

	"github.com/mcpmount/mcpmount/examples/conformance/fixtures"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3000", "listen address (host:port; port 0 picks a free port)")
	token := flag.String("token", "", "if set, require the header \"Authorization: Bearer TOKEN\" on every request")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("conformance-server: ")

	mux := http.NewServeMux()
	mcpHandlers := mount(mux, fixtures.NewServer())

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
	// End the MCP streams (listen streams get their final result), then
	// give in-flight requests a moment, then cut.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, h := range mcpHandlers {
		if err := h.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			log.Print(err)
		}
	}
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		log.Print(err)
	}
	_ = hs.Close()
}

// requireBearer rejects requests without the expected bearer token. It exists
// so the interop tests can check that their clients send MCP_TOKEN.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpmount-conformance"`)
			http.Error(w, "missing or invalid bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
