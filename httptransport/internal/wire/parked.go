package wire

import (
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Hijack takes w's connection over. A wrapper may refuse once the body
// has started (gin's does, for the sake of protocol upgrades); the stream's
// bytes are all flushed by then, so the writers it wraps are asked in turn.
func Hijack(w http.ResponseWriter) (net.Conn, error) {
	conn, _, err := http.NewResponseController(w).Hijack()
	for err != nil {
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil, err
		}
		w = u.Unwrap()
		if hj, ok := w.(http.Hijacker); ok {
			conn, _, err = hj.Hijack()
		}
	}
	return conn, nil
}

// ParkedWriter is the response writer of a parked stream: it writes the
// body straight to the connection, framed as HTTP/1.1 chunks when net/http
// had started a chunked body. Its methods are called under the stream's
// mutex.
type ParkedWriter struct {
	conn    net.Conn
	chunked bool
	timeout time.Duration // the stream's write timeout (zero: none)
	closed  bool
}

// NewParkedWriter returns the writer of a stream whose connection conn was
// taken over (Hijack) once its status and headers were out: chunked says
// net/http had started a chunked body, and timeout is the stream's write
// timeout (zero: none), which Close also gives the body's last chunk when
// it is under a second.
func NewParkedWriter(conn net.Conn, chunked bool, timeout time.Duration) *ParkedWriter {
	return &ParkedWriter{conn: conn, chunked: chunked, timeout: timeout}
}

// Header implements http.ResponseWriter; the header is sent already.
func (p *ParkedWriter) Header() http.Header { return http.Header{} }

// WriteHeader implements http.ResponseWriter; the status is sent already.
func (p *ParkedWriter) WriteHeader(int) {}

// Write implements http.ResponseWriter: one chunk, in one write. A failed
// write closes the connection, which ends the stream through Watch.
func (p *ParkedWriter) Write(b []byte) (int, error) {
	if p.closed {
		return 0, net.ErrClosed
	}
	if len(b) == 0 {
		return 0, nil // an empty chunk would end the body
	}
	out := b
	if p.chunked {
		buf := chunkPool.Get().(*[]byte)
		out = strconv.AppendInt((*buf)[:0], int64(len(b)), 16)
		out = append(out, "\r\n"...)
		out = append(out, b...)
		out = append(out, "\r\n"...)
		defer func() {
			if cap(out) <= 64<<10 {
				*buf = out
				chunkPool.Put(buf)
			}
		}()
	}
	if _, err := p.conn.Write(out); err != nil {
		p.closed = true
		p.Abort()
		return 0, err
	}
	return len(b), nil
}

// Flush implements http.Flusher: writes are not buffered.
func (p *ParkedWriter) Flush() {}

// SetWriteDeadline bounds the next writes, for http.ResponseController.
func (p *ParkedWriter) SetWriteDeadline(t time.Time) error { return p.conn.SetWriteDeadline(t) }

// Close ends the body and closes the connection.
func (p *ParkedWriter) Close() {
	if p.closed {
		return
	}
	p.closed = true
	if p.chunked {
		// A client that stopped reading gets no clean end: the stream's
		// lock is held here.
		d := time.Second
		if p.timeout > 0 && p.timeout < d {
			d = p.timeout
		}
		_ = p.conn.SetWriteDeadline(time.Now().Add(d))
		if _, err := p.conn.Write([]byte("0\r\n\r\n")); err != nil {
			p.Abort()
			return
		}
	}
	_ = p.conn.Close()
}

// Abort closes the connection at once: over TLS, without the close_notify
// that a stalled client would make wait (under the stream's lock).
func (p *ParkedWriter) Abort() {
	if tc, ok := p.conn.(*tls.Conn); ok {
		_ = tc.NetConn().Close()
		return
	}
	_ = p.conn.Close()
}

// Watch returns when the connection is closed, by the client or by Close.
// A client sends nothing on a stream's connection; any bytes it does send
// are discarded.
func (p *ParkedWriter) Watch() {
	var b [16]byte
	for {
		if _, err := p.conn.Read(b[:]); err != nil {
			return
		}
	}
}

// chunkPool holds the buffers in which chunks are framed, so that a parked
// stream keeps none while idle.
var chunkPool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}
