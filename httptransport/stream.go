package httptransport

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// ErrStreamClosed is returned by Call.Send and a session's Sender once the
// stream has ended: the call's response was written, the call was
// cancelled, or the session ended.
var ErrStreamClosed = errors.New("httptransport: stream closed")

// ErrNoStream is returned by Call.Send for a server-to-client request when
// the client cannot receive it: its POST accepts only JSON, so the answer
// is the only message that reaches it. (A notification there is dropped,
// and Send returns nil.)
var ErrNoStream = errors.New("httptransport: no stream to the client for this request")

// stream is where one call's messages go: the call's own POST response,
// answered as JSON when nothing precedes the response and as SSE otherwise.
// In 2025-era sessions a stream outlives its HTTP response: its events are
// kept in the EventStore and a GET with Last-Event-ID attaches a new
// response to it. The session's standalone GET stream is a stream too.
//
// All writes happen under mu, from the engine's goroutines and the
// keep-alive timer alike.
type stream struct {
	h        *Handler
	mu       sync.Mutex
	w        http.ResponseWriter // nil while no response is attached
	sw       *sse.Writer
	accept   acceptance
	open     bool // SSE status and headers written on w
	lifted   bool // the server's write timeout is lifted for w (liftLocked)
	liftOnly bool // the header flush delay lifts the write timeout, not opens (startTimer)
	ended    bool // the final message was written or the stream was cut

	modern     bool
	standalone bool       // a GET stream: no final response
	reqID      jsonrpc.ID // the request a POST's stream answers (cut)
	status     func(*jsonrpc.Error) int
	header     func(http.Header) // extra response headers (e.g. Mcp-Session-Id)

	closeConn bool              // the stream may be parked: say Connection: close (park.go)
	release   func()            // gives back the place in a quota the attached response holds (limits.go)
	eventName string            // "message" on 2024-11-05 streams
	relay     func(data []byte) // if set, messages go here instead (batch members, 2024-11-05 calls)
	relayLast func(data []byte) // if set, the final response goes here instead of to relay
	relayed   func()            // a 2024-11-05 call's quota release, run by the event stream before its answer's write

	timer   *time.Timer
	held    bool          // a listen's stream: every message flushes at once (see deferrable)
	pending bool          // events written to the response but not flushed yet (writeLocked)
	flushT  *time.Timer   // flushes them (NotificationFlushDelay)
	attachC chan struct{} // closed and replaced when a response detaches
	doneC   chan struct{} // closed when the stream ends; made on demand (done)

	guard writeGuard // lets a cancelled call end a write blocked on its client

	// Resumability (2025-era sessions with an EventStore).
	sess    *liveSession
	id      string // stream id, unique in the session
	seq     int    // index of the last event written
	sent    int    // index of the last event written to an attached response
	priming bool   // send a priming event when the SSE stream opens
}

func (h *Handler) newStream(w http.ResponseWriter, accept acceptance, modern bool) *stream {
	s := &stream{h: h, w: w, accept: accept, modern: modern}
	if modern {
		s.status = modernStatus
	} else {
		s.status = legacyStatus
	}
	return s
}

// startTimer arms the early header flush, or the keep-alive on an open
// stream, unless a timer runs already. A response that cannot open as SSE
// (the client takes only JSON) only has the server's write timeout lifted
// at the header flush delay. r is the request the stream answers: when its
// server's WriteTimeout would pass before the timer fires, or too near it,
// the timeout is lifted at once (see HeaderFlushDelay).
func (s *stream) startTimer(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil || s.ended || s.relay != nil {
		return // a relayed stream (batch member, 2024-11-05 call) has no response of its own
	}
	d := s.h.cfg.headerFlushDelay
	s.liftOnly = !s.accept.sse
	if s.open || d == 0 {
		if !s.accept.sse {
			return
		}
		d, s.liftOnly = s.h.cfg.keepAlive, false
	}
	if d <= 0 {
		return
	}
	if !s.open && !s.lifted && s.w != nil && liftNow(r, d) {
		s.liftLocked()
	}
	s.timer = time.AfterFunc(d, s.tick)
}

// liftNow reports whether the WriteTimeout of r's server is no longer than
// twice d, the delay after which a silent response has it lifted: on
// HTTP/2 a WriteTimeout that fires resets the stream for good (on
// HTTP/1.1 a passed deadline can still be moved), so a lift due near it
// could come too late.
func liftNow(r *http.Request, d time.Duration) bool {
	if r == nil {
		return false
	}
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	return srv != nil && srv.WriteTimeout > 0 && srv.WriteTimeout <= 2*d
}

// tick opens a stream that has stayed silent (or lifts the server's write
// timeout for it: liftOnly), or sends a keep-alive comment.
func (s *stream) tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	if s.w != nil {
		switch {
		case s.open:
			s.writeLocked(sse.Event{IsComment: true})
		case s.liftOnly:
			s.liftLocked()
		default:
			s.openLocked()
		}
	}
	s.liftOnly = false
	if s.h.cfg.keepAlive > 0 && s.accept.sse {
		s.timer.Reset(s.h.cfg.keepAlive)
	} else {
		s.timer = nil // done: a response attached later arms its own
	}
}

// liftLocked lifts the server's write timeout for a response not open yet,
// as opening it would (a JSON-only client's never opens; one whose
// server's timeout is short is lifted before it opens, see startTimer).
// Its answer gets the per-write deadline.
func (s *stream) liftLocked() {
	if s.sw == nil {
		s.sw = sse.NewWriter(s.w)
	}
	_ = s.sw.SetWriteDeadline(time.Time{})
	s.lifted = true
}

// openLocked writes the SSE status and headers, lifts the server's write
// timeout for this response, and sends the priming event (2025-11-25 with
// resumability) or a comment, so that a DATA frame follows the headers
// through HTTP/2 proxies.
func (s *stream) openLocked() {
	s.openForLocked(false, http.StatusOK)
}

// openForLocked opens the stream with status; when an event is written
// right after (event set), the headers go out with it and no comment
// precedes it.
func (s *stream) openForLocked(event bool, status int) {
	if s.sw == nil {
		s.sw = sse.NewWriter(s.w)
	}
	h := s.w.Header()
	sse.SetHeaders(h)
	if s.closeConn {
		h.Set("Connection", "close")
	}
	if s.header != nil {
		s.header(h)
	}
	s.w.WriteHeader(status)
	s.open = true
	if s.timer != nil && s.h.cfg.keepAlive > 0 && !s.ended {
		// Armed for the header flush: from now on it keeps the stream alive
		// (not when the stream opens with its final event).
		s.timer.Reset(s.h.cfg.keepAlive)
	}
	_ = s.sw.SetWriteDeadline(time.Time{})
	if s.priming {
		s.priming = false
		s.writeLocked(sse.Event{ID: s.nextIDLocked(nil), HasID: true, Retry: s.h.cfg.retry})
		return
	}
	if !event {
		s.writeLocked(sse.Event{IsComment: true})
	}
}

// nextIDLocked assigns the next event id of a resumable stream and records
// data in the event store.
func (s *stream) nextIDLocked(data []byte) string {
	if !s.resumable() {
		return ""
	}
	s.seq++
	ctx, cancel := s.storeCtx()
	defer cancel()
	if err := s.h.cfg.events.Append(ctx, s.sess.id, s.id, s.seq, data); err != nil {
		s.h.warn("mcp: event store append failed", "session", logval.String(s.sess.id), "error", logval.Err(err))
	}
	return s.id + "_" + strconv.Itoa(s.seq)
}

// storeCtx is the context of the EventStore calls made under the stream's
// lock: the session's, bounded as every call to a user's store is
// (eventsCtx), so that one that stops answering holds the stream, and
// whoever sends on it, for so long at most.
func (s *stream) storeCtx() (context.Context, context.CancelFunc) {
	return s.h.eventsCtx(s.sess.ctx)
}

// resumable reports whether the stream's events carry ids and are stored.
func (s *stream) resumable() bool {
	return s.sess != nil && s.h.cfg.events != nil && !s.sess.sess.Legacy
}

// writeLocked writes one event to the attached response, if any, and
// flushes it with the events pending before it. A failed write detaches
// the response: the client is gone.
func (s *stream) writeLocked(e sse.Event) { s.writeEventLocked(e, false) }

// writeEventLocked is writeLocked; with later set, the event is written
// unflushed (pending) and a flush is due within NotificationFlushDelay.
func (s *stream) writeEventLocked(e sse.Event, later bool) {
	if s.w == nil || !s.open {
		return
	}
	if d := s.h.cfg.writeTimeout; d > 0 {
		_ = s.sw.SetWriteDeadline(time.Now().Add(d))
	}
	var err error
	s.guard.begin(s.sw)
	switch {
	case later:
		err = s.sw.Buffer(e)
	case e.IsComment:
		err = s.sw.WriteComment("")
	default:
		err = s.sw.WriteEvent(e)
	}
	s.guard.end()
	if err == nil {
		if later {
			s.deferFlushLocked()
		} else {
			s.flushedLocked()
		}
	}
	if s.h.cfg.writeTimeout > 0 && err == nil {
		// The deadline bounds this write only: on HTTP/2 a pending one
		// is a timer that resets the stream, however quiet it is.
		_ = s.sw.SetWriteDeadline(time.Time{})
	}
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.detachLocked()
		return
	}
	// A writer that cannot flush (middleware wrapping it the naive way)
	// took the event all the same: it reaches the client when the
	// response ends, so the stream goes on (said once in the log).
	if err != nil {
		s.h.warnNoFlush(s.w)
	}
	if e.HasID {
		s.sent = s.seq
	}
}

// deferrable reports whether a notification on the stream may wait for the
// messages after it (NotificationFlushDelay): on a call's stream whose
// response buffers it, not on a held stream (GET, listen, 2024-11-05), which
// a broadcast reaches by the thousand, nor on a parked one, which has no
// buffer to wait in.
func (s *stream) deferrable() bool {
	if s.h.cfg.notifyDelay <= 0 || s.standalone || s.held {
		return false
	}
	_, parked := s.w.(*parkedWriter)
	return !parked
}

// deferFlushLocked notes events written but not flushed, arming their flush.
func (s *stream) deferFlushLocked() {
	if s.pending {
		return
	}
	s.pending = true
	if s.flushT == nil {
		s.flushT = time.AfterFunc(s.h.cfg.notifyDelay, s.flushPending)
	} else {
		s.flushT.Reset(s.h.cfg.notifyDelay)
	}
}

// flushedLocked notes that nothing written waits for a flush any more.
func (s *stream) flushedLocked() {
	if s.pending {
		s.pending = false
		s.flushT.Stop()
	}
}

// flushPending flushes the pending events, unless a write has since.
func (s *stream) flushPending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushPendingLocked()
}

// flushPendingLocked flushes the pending events under the per-write
// deadline, so that none is left for net/http to write once the handler
// returns, when no deadline is in force. A failed flush detaches the
// response.
func (s *stream) flushPendingLocked() {
	if !s.pending {
		return
	}
	s.pending = false
	if s.w == nil || s.sw == nil {
		return
	}
	if d := s.h.cfg.writeTimeout; d > 0 {
		_ = s.sw.SetWriteDeadline(time.Now().Add(d))
	}
	s.guard.begin(s.sw)
	err := s.sw.Flush()
	s.guard.end()
	if s.h.cfg.writeTimeout > 0 && err == nil {
		_ = s.sw.SetWriteDeadline(time.Time{})
	}
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.detachLocked()
	}
}

// send delivers a notification or server request for the call. Messages
// sent before the client accepts SSE are dropped: without a stream there is
// nowhere to put them.
func (s *stream) send(msg *jsonrpc.Message) error {
	data, err := msg.Encode()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return ErrStreamClosed
	}
	if !s.accept.sse {
		if msg.IsRequest() {
			return ErrNoStream
		}
		return nil
	}
	if s.relay != nil {
		s.relay(data)
		return nil
	}
	if s.w != nil && !s.open {
		s.openForLocked(true, http.StatusOK)
	}
	later := msg.IsNotification() && s.deferrable()
	s.writeEventLocked(sse.Event{ID: s.nextIDLocked(data), HasID: s.resumable(), Name: s.eventName, Data: data}, later)
	return nil
}

// sendRaw writes an encoded message as an event, opening the stream.
func (s *stream) sendRaw(data []byte) { s.sendRawAfter(data, nil) }

// sendRawAfter is sendRaw calling before first, once it holds the stream:
// a relayed answer's place in its quota is given back there, when no
// other write is ahead of it, just before the client can have it.
func (s *stream) sendRawAfter(data []byte, before func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if before != nil {
		before()
	}
	if s.ended || s.w == nil {
		return
	}
	if !s.open {
		s.openForLocked(true, http.StatusOK)
	}
	s.writeLocked(sse.Event{Name: s.eventName, Data: data})
}

// finish writes the response and ends the stream: as an SSE event if the
// stream is open, otherwise as a JSON body with the era's status.
func (s *stream) finish(resp *jsonrpc.Message) {
	data, err := resp.Encode()
	if err != nil {
		data = errorBody(resp.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "encoding response: "+err.Error()))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	if s.relayLast != nil {
		s.relayLast(data)
		s.endLocked()
		return
	}
	if s.relay != nil {
		s.relay(data)
		s.endLocked()
		return
	}
	s.endLocked()
	if s.w == nil {
		// Nobody is attached: keep it for a resuming client.
		s.nextIDLocked(data)
		return
	}
	if s.open || (!s.accept.json && s.accept.sse) {
		if !s.open {
			// A client that takes only SSE gets the error's status on it.
			s.openForLocked(true, s.status(resp.Error))
		}
		s.writeLocked(sse.Event{ID: s.nextIDLocked(data), HasID: s.resumable(), Name: s.eventName, Data: data})
		s.detachParkedLocked()
		return
	}
	s.writeJSONLocked(s.status(resp.Error), data)
}

// finishJSON ends the stream with body, a JSON answer (a batch's array).
func (s *stream) finishJSON(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.endLocked()
	if s.w != nil && !s.open {
		s.writeJSONLocked(http.StatusOK, body)
	}
}

// writeJSONLocked writes a JSON answer on the attached response. If the
// server's write timeout was lifted for it, the per-write deadline bounds
// it instead, and the answer is flushed whole under that deadline, with its
// length, so that nothing is left for net/http to write once the handler
// returns, when neither deadline would be in force (a client that stopped
// reading would hold the connection's goroutine for good).
func (s *stream) writeJSONLocked(status int, body []byte) {
	if s.header != nil {
		s.header(s.w.Header())
	}
	if !s.lifted || s.h.cfg.writeTimeout <= 0 {
		writeJSON(s.w, status, body)
		return
	}
	s.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_ = s.sw.SetWriteDeadline(time.Now().Add(s.h.cfg.writeTimeout))
	writeJSON(s.w, status, body)
	_ = s.sw.Flush()
	_ = s.sw.SetWriteDeadline(time.Time{})
}

// cut ends the stream without a response: the call was cancelled or the
// session ended. A POST still waiting for its answer gets one it can read
// (a body of the content type it asked for, not a bare 200): an SSE stream
// with no event if it takes SSE, a JSON-RPC error saying the request was
// cancelled if it takes only JSON.
//
// A call the server abandons is not one the client cancelled: once
// Shutdown has begun, a call's stream is ended with an error answer
// (errServerShutdown) instead, on SSE as in JSON, and kept for a client
// resuming the stream (on another instance, with a shared EventStore), so
// that the client knows to send the request again.
func (s *stream) cut() {
	if s.h.closing.Load() && s.reqID.IsValid() && !s.standalone {
		s.finish(jsonrpc.NewError(s.reqID, errServerShutdown))
		return
	}
	s.mu.Lock()
	if s.w != nil && !s.open && !s.ended && !s.standalone && s.relay == nil {
		if s.accept.sse {
			s.priming = false // nothing follows to resume
			s.openLocked()
		} else {
			s.writeJSONLocked(http.StatusOK, errorBody(s.reqID, errRequestCancelled))
		}
	}
	s.endLocked()
	s.detachParkedLocked()
	s.mu.Unlock()
}

// detachParkedLocked releases a parked connection once its stream has
// ended: no handler is waiting to detach it.
func (s *stream) detachParkedLocked() {
	if _, ok := s.w.(*parkedWriter); ok {
		s.detachLocked()
	}
}

func (s *stream) endLocked() {
	if s.ended {
		return
	}
	s.releaseLocked()
	s.ended = true
	if s.timer != nil {
		s.timer.Stop()
	}
	if s.doneC == nil {
		s.doneC = closedC
	} else {
		close(s.doneC)
	}
}

// closedC is the done channel of streams that ended before anyone asked.
var closedC = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// done returns a channel closed when the stream ends. Most 2026-07-28
// streams never need one, so it is made on the first call.
func (s *stream) done() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.doneC == nil {
		s.doneC = make(chan struct{})
	}
	return s.doneC
}

// detach releases the HTTP response; the handler returns right after.
func (s *stream) detach() {
	s.mu.Lock()
	s.detachLocked()
	s.mu.Unlock()
}

// detachIf releases the response if it is still w.
func (s *stream) detachIf(w http.ResponseWriter) {
	s.mu.Lock()
	if s.w == w {
		s.detachLocked()
	}
	s.mu.Unlock()
}

// detachAttached detaches the response that attach bound with the
// channel c, if it is still attached (a stream whose time is up, see
// Handler.streamLimit). A 2025-11-25 session's resumable stream first
// gets a server-side disconnect event (spec 2025-11-25 basic/transports#resumability-and-redelivery): a fresh id to resume
// from and when to come back. Clients count a reconnect that brings no
// new id as a failed one and give up the session after a few.
func (s *stream) detachAttached(c <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.attachC == nil || (<-chan struct{})(s.attachC) != c {
		return
	}
	s.releaseLocked()
	if s.open && !s.ended && s.resumable() && s.sess.sess.Version >= Version20251125 {
		s.writeLocked(sse.Event{ID: s.nextIDLocked(nil), HasID: true, Retry: s.reconnectAfter()})
	}
	s.detachLocked()
}

// reconnectAfter is the retry a server-side disconnect asks for:
// Options.RetryInterval, or a second.
func (s *stream) reconnectAfter() time.Duration {
	if s.h.cfg.retry > 0 {
		return s.h.cfg.retry
	}
	return time.Second
}

// releaseLocked gives back the place in its principal's quota that the
// attached response holds, before anything tells the client that the
// response or the stream ended: a client may come back at once.
func (s *stream) releaseLocked() {
	if r := s.release; r != nil {
		s.release = nil
		r()
	}
}

func (s *stream) detachLocked() {
	s.releaseLocked()
	s.flushPendingLocked()
	if s.flushT != nil {
		s.flushT.Stop()
	}
	if s.w == nil {
		return
	}
	if pw, ok := s.w.(*parkedWriter); ok {
		pw.close() // park.go: the watcher sees it and cleans up
	}
	s.w, s.sw, s.open = nil, nil, false
	if s.attachC != nil {
		close(s.attachC)
		s.attachC = nil
	}
}

// attach binds a resuming GET's response to the stream, replaying the
// events after index. The events in first are written before anything
// else can reach the stream (a 2024-11-05 stream's endpoint event). It
// fails if another response is attached. release, if not nil, gives back
// the response's place in its principal's quota (stream.release).
func (s *stream) attach(w http.ResponseWriter, after int, replay, closeConn bool, release func(), first ...sse.Event) (detached <-chan struct{}, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w != nil {
		return nil, errStreamConflict
	}
	s.closeConn = closeConn
	// A standalone stream opened afresh (no Last-Event-ID) first gets what
	// the session sent while no GET was there to take it, if the store
	// still has it (a request from an initialized handler, say).
	undelivered := !replay && s.standalone && s.sent < s.seq
	if undelivered {
		replay, after = true, s.sent
	}
	var events [][]byte
	// A client that has the stream's last event misses nothing: no need
	// to ask the store, which may have let the stream's events go.
	if replay && after != s.seq && s.h.cfg.events != nil && s.sess != nil {
		ctx, cancel := s.storeCtx()
		events, err = s.h.cfg.events.After(ctx, s.sess.id, s.id, after)
		cancel()
		if err != nil && !undelivered {
			return nil, errUnknownEventID
		}
		err = nil
	}
	s.w, s.sw = w, sse.NewWriter(w)
	s.release = release
	s.accept.sse = true
	s.open, s.lifted, s.liftOnly = false, false, false
	// Open without a priming event: the client already has an id.
	s.priming = false
	s.openLocked()
	for _, e := range first {
		s.writeLocked(e)
	}
	for i, data := range events {
		if len(data) == 0 {
			continue // a priming event
		}
		s.writeLocked(sse.Event{ID: s.id + "_" + strconv.Itoa(after+1+i), HasID: true, Data: data})
	}
	s.attachC = make(chan struct{})
	return s.attachC, nil
}
