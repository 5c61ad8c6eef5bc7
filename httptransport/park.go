package httptransport

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// ErrHold is returned by Engine.Serve for a 2026-07-28 subscriptions/listen
// call to keep the call's stream open after Serve returns, so that an idle
// subscription costs no goroutine in the engine. The engine keeps the Call
// and sends through call.Send as before; the ctx Serve received stays valid
// and is cancelled when the stream ends (the client left, its time limit,
// Handler.Shutdown, or its http.Server's Shutdown), which is when the
// engine drops the Call, with
// context.AfterFunc for instance. Returned for any other call, ErrHold is
// an internal error.
var ErrHold = errors.New("httptransport: hold the listen stream")

// Parking (this file): a held stream on an HTTP/1.x connection (a
// 2026-07-28 listen the engine holds, a 2025-era GET stream, a 2024-11-05
// stream) is taken over from net/http (Hijack) once its status and headers
// are out, and the handler returns. net/http's connection goroutine, its
// read and write buffers and its background reader go away; what remains
// per stream is the socket, the stream's state and one small goroutine
// that waits for the client to close. HTTP/2 connections, response writers
// that cannot be hijacked, compressed responses and Options.DisableHijack
// keep the handler's goroutine waiting instead.
//
// Every way a parked stream ends goes through closing its connection: the
// stream ending (cut, or finish writing the final message), a failed write
// or a detach close it, and the client closing it ends the watcher's read.
// The watcher then runs what the handler would have run after waiting.

// parkable reports whether a held stream on r's connection can be taken
// over. Such a stream's response says Connection: close (stream.closeConn),
// so that no client reuses a connection that ends with the stream.
func (h *Handler) parkable(r *http.Request) bool {
	return !h.cfg.disableHijack && r.ProtoMajor == 1
}

// parkedConn is what the handler knows of a parked stream.
type parkedConn struct {
	pw  *parkedWriter // nil while being taken over
	srv *http.Server  // the server whose connection it is, if known
}

// park takes st's connection over from net/http, if w is still attached
// to st, and starts its watcher, which runs gone once the connection is
// closed, by either side. It reports false, leaving everything as it was,
// when st cannot be parked: then the caller waits as before.
func (h *Handler) park(w http.ResponseWriter, r *http.Request, st *stream, gone func()) bool {
	if !h.parkable(r) {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.readyToParkLocked(w) {
		return false
	}
	watch := h.watchServer(r)
	// Registered before the hijack, under the lock that Shutdown and the
	// server hook take, so that no stream is parked behind their backs.
	h.mu.Lock()
	if h.closing.Load() || watch.isDownLocked() {
		h.mu.Unlock()
		return false
	}
	pc := &parkedConn{}
	if watch != nil {
		pc.srv = watch.srv
	}
	h.parked[st] = pc
	h.mu.Unlock()
	conn, err := hijack(w)
	if err != nil {
		h.mu.Lock()
		delete(h.parked, st)
		h.mu.Unlock()
		return false
	}
	pw := &parkedWriter{conn: conn, chunked: r.ProtoAtLeast(1, 1), timeout: h.cfg.writeTimeout}
	st.parkOnLocked(pw)
	h.mu.Lock()
	pc.pw = pw
	// Shutdown (the handler's or the server's) may have passed over this
	// stream while it was being taken over: it ends here, and the watcher
	// below cleans up. (A listen is ended by its final result, which waits
	// for the stream's lock, held here.)
	late := (h.closing.Load() || watch.isDownLocked()) && h.listens[st] == nil
	h.mu.Unlock()
	if late {
		st.detachLocked()
	}
	h.inflight.enterLate()
	go func() {
		defer h.inflight.exit()
		pw.watch()
		st.detachIf(pw)
		h.mu.Lock()
		if h.parked[st] == pc {
			delete(h.parked, st)
		}
		h.mu.Unlock()
		gone()
	}()
	return true
}

// hijack takes w's connection over. A wrapper may refuse once the body
// has started (gin's does, for the sake of protocol upgrades); the stream's
// bytes are all flushed by then, so the writers it wraps are asked in turn.
func hijack(w http.ResponseWriter) (net.Conn, error) {
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

// parkListen parks a held listen stream: its call ends when the client
// leaves, and when the call ends (Shutdown, the client leaving) the stream
// is cut, which closes the connection, and end runs.
func (h *Handler) parkListen(w http.ResponseWriter, r *http.Request, st *stream, call *Call, end func()) bool {
	if !h.park(w, r, st, call.cancel) {
		return false
	}
	context.AfterFunc(call.ctx, func() {
		st.cut()
		end()
	})
	return true
}

// endParked closes the parked streams other than listens (all of them
// when srv is nil): a 2025-era client may resume elsewhere, a 2024-11-05
// session ends with its stream.
func (h *Handler) endParked(srv *http.Server) {
	type entry struct {
		st *stream
		pw *parkedWriter
	}
	var ends []entry
	h.mu.Lock()
	for st, pc := range h.parked {
		if pc.pw != nil && (srv == nil || pc.srv == srv) && h.listens[st] == nil {
			ends = append(ends, entry{st, pc.pw})
		}
	}
	h.mu.Unlock()
	for _, e := range ends {
		e.st.detachIf(e.pw)
	}
}

// abortParked closes the connection of every parked stream, without the
// streams' locks: a write blocked on a client that stopped reading holds
// its stream's lock until the write's deadline, and fails now instead.
// Shutdown does this once its deadline has passed.
func (h *Handler) abortParked() {
	h.mu.Lock()
	pws := make([]*parkedWriter, 0, len(h.parked))
	for _, pc := range h.parked {
		if pc.pw != nil {
			pws = append(pws, pc.pw)
		}
	}
	h.mu.Unlock()
	for _, pw := range pws {
		pw.abort()
	}
}

// endListens sends the final result on the listen streams that match and
// ends their calls, all at once, since a stalled client may hold its
// stream for the write timeout. match runs under h.mu.
func (h *Handler) endListens(match func(*Call) bool) {
	h.mu.Lock()
	var calls []*Call
	for _, c := range h.listens {
		if match(c) {
			calls = append(calls, c)
		}
	}
	h.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range calls {
		wg.Go(func() { finishListen(c) })
	}
	wg.Wait()
}

// finishListen ends a listen stream with its final result and ends its
// call.
func finishListen(c *Call) {
	c.out.finish(listenResult(c.Request.ID))
	c.cancel()
}

// readyToParkLocked opens the stream if it is not open yet and flushes what
// waits in net/http's buffer, which the hijack would drop (notifications
// deferred by NotificationFlushDelay, on a resumed call stream between
// attach and park). It reports false when the stream cannot be parked: it
// ended, w is no longer its response, its client takes no SSE, middleware
// compresses it, or a write failed (the client is gone).
func (s *stream) readyToParkLocked(w http.ResponseWriter) bool {
	if s.ended || s.resp.w != w || !s.accept.sse {
		return false
	}
	if !s.resp.open {
		if s.openLocked(); s.resp.w != w {
			return false
		}
	}
	if w.Header().Get("Content-Encoding") != "" {
		return false // set when the headers went out
	}
	s.flushPendingLocked()
	return s.resp.w == w
}

// parkedWriter is the response writer of a parked stream: it writes the
// body straight to the connection, framed as HTTP/1.1 chunks when net/http
// had started a chunked body. Its methods are called under the stream's
// mutex.
type parkedWriter struct {
	conn    net.Conn
	chunked bool
	timeout time.Duration // the stream's write timeout (zero: none)
	closed  bool
}

// Header implements http.ResponseWriter; the header is sent already.
func (p *parkedWriter) Header() http.Header { return http.Header{} }

// WriteHeader implements http.ResponseWriter; the status is sent already.
func (p *parkedWriter) WriteHeader(int) {}

// Write implements http.ResponseWriter: one chunk, in one write. A failed
// write closes the connection, which ends the stream through watch.
func (p *parkedWriter) Write(b []byte) (int, error) {
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
		p.abort()
		return 0, err
	}
	return len(b), nil
}

// Flush implements http.Flusher: writes are not buffered.
func (p *parkedWriter) Flush() {}

// SetWriteDeadline bounds the next writes, for http.ResponseController.
func (p *parkedWriter) SetWriteDeadline(t time.Time) error { return p.conn.SetWriteDeadline(t) }

// close ends the body and closes the connection.
func (p *parkedWriter) close() {
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
			p.abort()
			return
		}
	}
	_ = p.conn.Close()
}

// abort closes the connection at once: over TLS, without the close_notify
// that a stalled client would make wait (under the stream's lock).
func (p *parkedWriter) abort() {
	if tc, ok := p.conn.(*tls.Conn); ok {
		_ = tc.NetConn().Close()
		return
	}
	_ = p.conn.Close()
}

// watch returns when the connection is closed, by the client or by close.
// A client sends nothing on a stream's connection; any bytes it does send
// are discarded.
func (p *parkedWriter) watch() {
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
