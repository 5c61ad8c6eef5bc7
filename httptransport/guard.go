package httptransport

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// checkOrigin enforces the Origin rule of every era (spec 2025-11-25 basic/transports#security-warning): a present
// Origin that is not allowed gets 403. It also checks Host on loopback
// listeners, which is what defeats DNS rebinding against local servers.
func (h *Handler) checkOrigin(r *http.Request) *httpError {
	if h.cfg.anyOrigin {
		return nil
	}
	if origin := r.Header.Get("Origin"); origin != "" && !h.originAllowed(origin, r.Host) {
		return errForbiddenOrigin
	}
	if isLoopbackListener(r) && !isLocalHost(r.Host) && !h.cfg.allowedHosts[strings.ToLower(r.Host)] {
		return errForbiddenHost
	}
	return nil
}

func (h *Handler) originAllowed(origin, host string) bool {
	if h.cfg.allowedOrigins != nil {
		return h.cfg.allowedOrigins[origin] || h.cfg.allowedOrigins[normalOrigin(origin)]
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	return isLocalHost(u.Host) || strings.EqualFold(u.Host, host)
}

// normalOrigin writes an origin as browsers send it: scheme and host in
// lower case, no default port, no path. Anything that does not parse as
// scheme://host is only lower-cased ("null").
func normalOrigin(origin string) string {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return strings.ToLower(origin)
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port)
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return scheme + "://" + host
}

// isLocalHost reports whether hostport names this machine by a loopback name.
func isLocalHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func isLoopbackListener(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// acceptance is what a request's answers may be: JSON, an SSE stream, and
// whether its client is a plain JSON-RPC one (routeOf).
type acceptance struct {
	json, sse bool
	// plain marks a plain JSON-RPC client's POST: answered with JSON only,
	// and with 204 where a Streamable HTTP client gets 202 (ackStatus).
	plain bool
}

// ackStatus is the status of a POST that holds no request: 202 (spec
// 2025-11-25 basic/transports#sending-messages-to-the-server), or 204 for
// a plain JSON-RPC client, which reads any other status as a JSON body.
func (a acceptance) ackStatus() int {
	if a.plain {
		return http.StatusNoContent
	}
	return http.StatusAccepted
}

// parseAccept reads Accept: what it allows (a missing header allows both;
// the spec makes clients send both, but curl users are served too), and
// whether it names text/event-stream itself, as the spec's Streamable HTTP
// clients must, rather than through a wildcard or by its absence.
func parseAccept(r *http.Request) (a acceptance, namesSSE bool) {
	values := r.Header.Values("Accept")
	if len(values) == 0 {
		return acceptance{json: true, sse: true}, false
	}
	for _, v := range values {
		for rest, more := v, true; more; {
			var part string
			part, rest, more = strings.Cut(rest, ",")
			mt, params, _ := strings.Cut(part, ";")
			if refusedByQ(params) {
				continue // q=0: "not acceptable" (RFC 9110 section 12.4.2)
			}
			switch strings.ToLower(strings.TrimSpace(mt)) {
			case "application/json", "application/*":
				a.json = true
			case "text/event-stream":
				a.sse, namesSSE = true, true
			case "text/*":
				a.sse = true
			case "*/*":
				a.json, a.sse = true, true
			}
		}
	}
	return a, namesSSE
}

// refusedByQ reports whether media-type parameters hold a q of 0.
func refusedByQ(params string) bool {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		if strings.ContainsRune(p, '"') {
			return false // a quoted value, which may hold ";": no q read past it
		}
		name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
			return err == nil && q == 0
		}
	}
	return false
}

// checkContentType requires a JSON body on POST.
func checkContentType(r *http.Request) *httpError {
	ct := r.Header.Get("Content-Type")
	if ct == "application/json" {
		return nil // the common case, without parsing
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return errContentType
	}
	return nil
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// preallocBody is the most readBody reserves before the body arrives.
const preallocBody = 64 << 10

// readBody reads the whole body up to the limit into a pooled buffer, which
// the caller returns with putBuffer when done with every slice of it.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request) (*bytes.Buffer, *httpError) {
	if h.cfg.maxBody > 0 && r.ContentLength > h.cfg.maxBody {
		// Refused as announced, before reading (or asking for, under
		// Expect: 100-continue) a byte of it.
		return nil, errBodyTooLarge
	}
	body := r.Body
	if h.cfg.maxBody > 0 && r.ContentLength < 0 {
		// A body with a Content-Length (within the limit, by now) cannot
		// exceed it: net/http ends it there.
		body = http.MaxBytesReader(w, r.Body, h.cfg.maxBody)
	}
	if d := h.bodyTimeout(r); d > 0 {
		defer bodyDeadline(w, d)()
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	if r.ContentLength > 0 && (h.cfg.maxBody <= 0 || r.ContentLength <= h.cfg.maxBody) {
		// Room for what is announced, up to a bound: a client announcing a
		// large body and sending it slowly, or not at all, must not make
		// the server hold the announced size up front.
		buf.Grow(int(min(r.ContentLength, preallocBody)))
	}
	if _, err := buf.ReadFrom(body); err != nil {
		putBuffer(buf)
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, errBodyTooLarge
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The rest of the body is still on its way: the connection
			// cannot carry another request.
			w.Header().Set("Connection", "close")
			return nil, errBodyTimeout
		}
		return nil, refusal(http.StatusBadRequest, -32700, "reading request body: "+err.Error())
	}
	return buf, nil
}

// bodyTimeout is how long r's body may take (Options.BodyTimeout), or the
// http.Server's ReadTimeout if that is shorter: setting the read deadline
// must not extend the server's own.
func (h *Handler) bodyTimeout(r *http.Request) time.Duration {
	d := h.cfg.bodyTimeout
	if srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server); srv != nil && srv.ReadTimeout > 0 && d > 0 {
		d = min(d, srv.ReadTimeout)
	}
	return d
}

// bodyDeadline sets the read deadline of r's connection (HTTP/1.x) or
// stream (HTTP/2) d from now, for reading its body, and returns the
// function that lifts it once the body is in, so that it cannot end a long
// response: net/http's HTTP/1.x server then reads the connection in the
// background, to notice a client that leaves, and a deadline passing
// there would cancel the request. (That server also lifts it itself when
// the body ends; HTTP/2 has a timer per stream, stopped here.) A writer
// that cannot set deadlines (a middleware's, without Unwrap) leaves the
// body to the server's ReadTimeout.
func bodyDeadline(w http.ResponseWriter, d time.Duration) (lift func()) {
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(d)) != nil {
		return func() {}
	}
	return func() { _ = rc.SetReadDeadline(time.Time{}) }
}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 {
		bufPool.Put(b)
	}
}

// drain discards what is left of a body so the connection can be reused.
func drain(r *http.Request) { _, _ = io.Copy(io.Discard, io.LimitReader(r.Body, 64<<10)) }

// acceptsSSE reports whether r's Accept allows text/event-stream, as a
// GET opening a stream must.
func acceptsSSE(r *http.Request) bool {
	a, _ := parseAccept(r)
	return a.sse
}
