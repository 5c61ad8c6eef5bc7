package demo

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// BaseURL is the http URL of a listener, with an unspecified address (as
// from -addr :8080) replaced by 127.0.0.1.
func BaseURL(ln net.Listener) string {
	addr := ln.Addr().(*net.TCPAddr)
	if addr.IP.IsUnspecified() {
		return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(addr.Port))
	}
	return "http://" + addr.String()
}

// Serve serves h on ln until ctx is done, then shuts down: the MCP
// endpoints first, so their streams end with a final message, then the
// HTTP server, which waits for the handlers to return.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, endpoints ...*httptransport.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var errs []error
	for _, e := range endpoints {
		errs = append(errs, e.Shutdown(sctx))
	}
	errs = append(errs, srv.Shutdown(sctx))
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
