package httptransport

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/httptransport/internal/wire"
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
// over. Such a stream's response says Connection: close (output.Stream.HoldPlace),
// so that no client reuses a connection that ends with the stream.
func (h *Handler) parkable(r *http.Request) bool {
	return !h.cfg.disableHijack && r.ProtoMajor == 1
}

// parkedConn is what the handler knows of a parked stream.
type parkedConn struct {
	pw   *wire.ParkedWriter // nil while being taken over
	srv  *http.Server       // the server whose connection it is, if known
	late bool               // Shutdown passed it over while it was taken over
}

// park takes st's connection over from net/http, if w is still attached
// to st, and starts its watcher, which runs gone once the connection is
// closed, by either side. It reports false, leaving everything as it was,
// when st cannot be parked: then the caller waits as before. answers says
// st is a 2024-11-05 event stream, which carries its session's answers:
// the handler's Shutdown ends it once they are out
// (liveSession.closeStreams), not when it passes over it.
func (h *Handler) park(w http.ResponseWriter, r *http.Request, st *output.Stream, answers bool, gone func()) bool {
	if !h.parkable(r) {
		return false
	}
	var pc *parkedConn
	if !st.Park(w, func() (*wire.ParkedWriter, bool) {
		pc = h.takeOver(w, r, st, answers)
		if pc == nil {
			return nil, false
		}
		return pc.pw, pc.late
	}) {
		return false
	}
	h.inflight.enterLate()
	go func() {
		defer h.inflight.exit()
		pc.pw.Watch()
		st.DetachIf(pc.pw)
		h.mu.Lock()
		if h.parked[st] == pc {
			delete(h.parked, st)
		}
		h.mu.Unlock()
		gone()
	}()
	return true
}

// takeOver hijacks the connection of st's response w, under st's lock
// (output.Stream.Park), and registers it as parked; nil when it cannot.
// answers is park's.
func (h *Handler) takeOver(w http.ResponseWriter, r *http.Request, st *output.Stream, answers bool) *parkedConn {
	watch := h.watchServer(r)
	// Registered before the hijack, under the lock that Shutdown and the
	// server hook take, so that no stream is parked behind their backs.
	h.mu.Lock()
	if h.closing.Load() || watch.isDownLocked() {
		h.mu.Unlock()
		return nil
	}
	pc := &parkedConn{}
	if watch != nil {
		pc.srv = watch.srv
	}
	h.parked[st] = pc
	h.mu.Unlock()
	conn, err := wire.Hijack(w)
	if err != nil {
		h.mu.Lock()
		delete(h.parked, st)
		h.mu.Unlock()
		return nil
	}
	pw := wire.NewParkedWriter(conn, r.ProtoAtLeast(1, 1), h.cfg.writeTimeout)
	h.mu.Lock()
	pc.pw = pw
	// Shutdown (the handler's or the server's) may have passed over this
	// stream while it was being taken over: it ends at once, and the
	// watcher cleans up. (A listen is ended by its final result, which
	// waits for the stream's lock, held here; a 2024-11-05 event stream by
	// the handler's Shutdown once its answers are out.)
	pc.late = ((h.closing.Load() && !answers) || watch.isDownLocked()) && h.listens[st] == nil
	h.mu.Unlock()
	return pc
}

// parkListen parks a held listen stream: its call ends when the client
// leaves, and when the call ends (Shutdown, the client leaving) the stream
// is cut, which closes the connection, and end runs.
func (h *Handler) parkListen(w http.ResponseWriter, r *http.Request, st *output.Stream, call *Call, end func()) bool {
	if !h.park(w, r, st, false, call.cancel) {
		return false
	}
	context.AfterFunc(call.ctx, func() {
		st.Cut()
		end()
	})
	return true
}

// endParked closes the parked streams other than listens (all of them
// when srv is nil): a 2025-era client may resume elsewhere, a 2024-11-05
// session ends with its stream.
func (h *Handler) endParked(srv *http.Server) {
	type entry struct {
		st *output.Stream
		pw *wire.ParkedWriter
	}
	var ends []entry
	h.mu.Lock()
	// At Shutdown a 2024-11-05 event stream ends with its session's calls
	// (liveSession.closeStreams): it carries their answers.
	legacy := map[*output.Stream]bool{}
	for _, ls := range h.live {
		if srv == nil && ls.sess.Legacy {
			legacy[ls.standalone] = true
		}
	}
	for st, pc := range h.parked {
		if pc.pw != nil && (srv == nil || pc.srv == srv) && h.listens[st] == nil && !legacy[st] {
			ends = append(ends, entry{st, pc.pw})
		}
	}
	h.mu.Unlock()
	for _, e := range ends {
		e.st.DetachIf(e.pw)
	}
}

// abortParked closes the connection of every parked stream, without the
// streams' locks: a write blocked on a client that stopped reading holds
// its stream's lock until the write's deadline, and fails now instead.
// Shutdown does this once its deadline has passed.
func (h *Handler) abortParked() {
	h.mu.Lock()
	pws := make([]*wire.ParkedWriter, 0, len(h.parked))
	for _, pc := range h.parked {
		if pc.pw != nil {
			pws = append(pws, pc.pw)
		}
	}
	h.mu.Unlock()
	for _, pw := range pws {
		pw.Abort()
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
	c.out.Finish(listenResult(c.Request.ID))
	c.cancel()
}
