// Package roundrobin is a plain round-robin HTTP load balancer, without
// affinity: what the examples and the scaled-out tests put in front of
// several instances of one MCP server, as a cloud load balancer would.
//
// It is httputil.ReverseProxy with three things added. SSE events pass at
// once (FlushInterval -1). A request whose target cannot be connected to
// (an instance that stopped) goes to the next target, as nginx's default
// proxy_next_upstream does: nothing of it was sent. And each request's
// body is read whole before
// it is passed on, as nginx does by default: Go's HTTP/1.1 server drains
// and closes a request's body when the response starts going out, which
// ReverseProxy does as soon as the instance's answer starts, while the
// proxy's transport may still have to read the body once more (to check
// its length); that read fails, the transport closes its connection to
// the instance, and the client's answer is cut mid-way
// (https://github.com/golang/go/issues/40747). Without the buffering, a
// Node.js client saw "terminated" in about one run in ten of the
// conformance suite through two instances.
package roundrobin

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
)

// DefaultMaxBodyBytes is the default of Options.MaxBodyBytes: 8 MiB,
// above the transport's own 4 MiB bound, so that the instances, not the
// proxy, refuse bodies just past theirs.
const DefaultMaxBodyBytes = 8 << 20

// Options configures a balancer. A nil *Options, and the zero value of
// every field, selects the documented default.
type Options struct {
	// Pin, if set, reports the requests to send to the first target
	// always, for clients whose transport needs one instance (2024-11-05
	// HTTP+SSE). Nil: none is pinned.
	Pin func(*http.Request) bool
	// KeepHost passes the client's Host header on, for instances that
	// check it (httptransport does on loopback). False: the target's.
	KeepHost bool
	// Transport sends the requests to the targets. Nil means
	// http.DefaultTransport.
	Transport http.RoundTripper
	// MaxBodyBytes bounds the body read before a request is passed on;
	// a larger one gets 413. Zero means DefaultMaxBodyBytes.
	MaxBodyBytes int64
}

// New returns a handler that sends each request to the next of targets
// in turn (see Options.Pin for the exception), or, when that one cannot
// be connected to, to the one after it, until each was tried once; then
// the client gets 502. It panics if targets is empty.
func New(targets []*url.URL, opts *Options) http.Handler {
	if len(targets) == 0 {
		panic("roundrobin: no targets")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			tried := triedOf(pr.In)
			var i uint64
			if o.Pin != nil && o.Pin(pr.In) {
				i = uint64(tried.n) // the first, unless it was tried
			} else {
				i = next.Add(1) - 1
			}
			pr.SetURL(targets[i%uint64(len(targets))])
			if o.KeepHost {
				pr.Out.Host = pr.In.Host
			}
		},
		FlushInterval: -1, // every SSE event at once
		Transport:     o.Transport,
	}
	proxy.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		tried := triedOf(r)
		tried.n++
		if op := (*net.OpError)(nil); errors.As(err, &op) && op.Op == "dial" && tried.n < len(targets) && r.Context().Err() == nil {
			if r.GetBody != nil {
				r.Body, _ = r.GetBody()
			}
			proxy.ServeHTTP(w, r)
			return
		}
		log.Printf("roundrobin: proxy error: %v", err)
		w.WriteHeader(http.StatusBadGateway)
	}
	return wholeBodies(proxy, o.MaxBodyBytes)
}

// tried counts the targets a request was sent to and could not reach.
type tried struct{ n int }

type triedKey struct{}

// triedOf returns the count of r's unreachable targets, which wholeBodies
// put in its context.
func triedOf(r *http.Request) *tried {
	if t, ok := r.Context().Value(triedKey{}).(*tried); ok {
		return t
	}
	return &tried{}
}

// wholeBodies reads each request's body, up to max bytes, before next
// sees the request (see the package doc for why), so that it can be sent
// again to another target (GetBody); the request's context counts the
// targets tried.
func wholeBodies(next http.Handler, max int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.WithContext(context.WithValue(r.Context(), triedKey{}, &tried{}))
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, max))
		if err != nil {
			status := http.StatusBadRequest
			if tooLarge := (*http.MaxBytesError)(nil); errors.As(err, &tooLarge) {
				status = http.StatusRequestEntityTooLarge
			}
			http.Error(w, http.StatusText(status), status)
			return
		}
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		r.Body, _ = r.GetBody()
		r.ContentLength = int64(len(body))
		r.TransferEncoding = nil
		next.ServeHTTP(w, r)
	})
}
