package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
)

// healthPath is where the command answers health checks.
const healthPath = "/healthz"

// health answers health checks: 200 "ok" while the command serves, 503
// "shutting down" from the moment it begins to shut down, so that a load
// balancer sends it no more requests while its calls in flight finish. It
// needs no token and says nothing of the child, whose restarts calls wait
// out.
type health struct {
	down atomic.Bool
}

func (s *health) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	if s.down.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "shutting down\n")
		return
	}
	_, _ = io.WriteString(w, "ok\n")
}

// serve serves h at --path (behind g, if any), the protected resource
// metadata and the health check on ln until ctx ends, then shuts down:
// the health check turns 503, then shutdown stops h and the HTTP server.
func serve(ctx context.Context, ln net.Listener, h *httptransport.Handler, g *guard, f *stdioFlags, logger *slog.Logger) error {
	hc := &health{}
	mux := newMux(f.path, h, g)
	mux.Handle("GET "+healthPath, hc)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		_ = h.Shutdown(context.Background())
		return err
	case <-ctx.Done():
	}
	hc.down.Store(true)
	shutdown(logval.NewLogger(logger), h, hs, f.drain)
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
