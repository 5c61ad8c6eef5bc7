package output

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/wire"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/sse"
)

// liftLocked lifts the server's write timeout for a response not open yet,
// as opening it would (a JSON-only client's never opens; one whose
// server's timeout is short is lifted before it opens, see startTimer).
// Its answer gets the per-write deadline.
func (s *Stream) liftLocked() {
	if s.resp.sw == nil {
		s.resp.sw = sse.NewWriter(s.resp.w)
	}
	_ = s.resp.sw.SetWriteDeadline(time.Time{})
	s.resp.lifted = true
}

// openLocked writes the SSE status and headers, lifts the server's write
// timeout for this response, and sends the priming event (2025-11-25 with
// resumability) or a comment, so that a DATA frame follows the headers
// through HTTP/2 proxies.
func (s *Stream) openLocked() {
	s.openForLocked(false, http.StatusOK)
}

// openForLocked opens the stream with status; when an event is written
// right after (event set), the headers go out with it and no comment
// precedes it.
func (s *Stream) openForLocked(event bool, status int) {
	if s.resp.sw == nil {
		s.resp.sw = sse.NewWriter(s.resp.w)
	}
	h := s.resp.w.Header()
	sse.SetHeaders(h)
	if s.resp.closeConn {
		h.Set("Connection", "close")
	}
	if s.role.Header != nil {
		s.role.Header(h)
	}
	s.resp.w.WriteHeader(status)
	s.resp.open = true
	if s.clock.timer != nil && s.cfg.KeepAlive > 0 && !s.ended {
		// Armed for the header flush: from now on it keeps the stream alive
		// (not when the stream opens with its final event).
		s.clock.timer.Reset(s.cfg.KeepAlive)
	}
	_ = s.resp.sw.SetWriteDeadline(time.Time{})
	if s.events.priming {
		s.events.priming = false
		s.writeLocked(sse.Event{ID: s.nextIDLocked(nil), HasID: true, Retry: s.cfg.Retry})
		return
	}
	if !event {
		s.writeLocked(sse.Event{IsComment: true})
	}
}

// nextIDLocked assigns the next event id of a resumable stream and records
// data in the event store.
func (s *Stream) nextIDLocked(data []byte) string {
	if !s.resumable() {
		return ""
	}
	s.events.seq++
	ctx, cancel := s.cfg.AppendCtx()
	defer cancel()
	if s.events.seq == 1 && s.events.record {
		// Before the first id a client could resume with goes out.
		if err := s.cfg.Events.Append(ctx, s.events.sess.ID(), CallRecord(s.events.id), 1, []byte(s.role.ReqID.Raw())); err != nil {
			s.cfg.Warn("mcp: event store append of a call's record failed", "session", logval.String(s.events.sess.ID()), "error", logval.Err(err))
		}
	}
	if err := s.cfg.Events.Append(ctx, s.events.sess.ID(), s.events.id, s.events.seq, data); err != nil {
		s.cfg.Warn("mcp: event store append failed", "session", logval.String(s.events.sess.ID()), "error", logval.Err(err))
	}
	return s.events.id + "_" + strconv.Itoa(s.events.seq)
}

// storeCtx is the context of the EventStore replays made under the
// stream's lock: the session's, bounded as every call to a user's store is
// (eventsCtx), so that one that stops answering holds the stream, and
// whoever sends on it, for so long at most.
func (s *Stream) storeCtx() (context.Context, context.CancelFunc) {
	return s.cfg.StoreCtx(s.events.sess.Context())
}

// resumable reports whether the stream's events carry ids and are stored.
func (s *Stream) resumable() bool {
	return s.events.sess != nil && s.cfg.Events != nil && s.events.sess.Resumable()
}

// writeLocked writes one event to the attached response, if any, and
// flushes it with the events pending before it. A failed write detaches
// the response: the client is gone.
func (s *Stream) writeLocked(e sse.Event) { s.writeEventLocked(e, false) }

// writeEventLocked is writeLocked; with later set, the event is written
// unflushed (pending) and a flush is due within NotificationFlushDelay.
func (s *Stream) writeEventLocked(e sse.Event, later bool) {
	if s.resp.w == nil || !s.resp.open {
		return
	}
	if d := s.cfg.WriteTimeout; d > 0 {
		_ = s.resp.sw.SetWriteDeadline(time.Now().Add(d))
	}
	var err error
	s.guard.Begin(s.resp.sw)
	switch {
	case later:
		err = s.resp.sw.Buffer(e)
	case e.IsComment:
		err = s.resp.sw.WriteComment("")
	default:
		err = s.resp.sw.WriteEvent(e)
	}
	s.guard.End()
	if err == nil {
		if later {
			s.deferFlushLocked()
		} else {
			s.flushedLocked()
		}
	}
	if s.cfg.WriteTimeout > 0 && err == nil {
		// The deadline bounds this write only: on HTTP/2 a pending one
		// is a timer that resets the stream, however quiet it is.
		_ = s.resp.sw.SetWriteDeadline(time.Time{})
	}
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.detachLocked()
		return
	}
	// A writer that cannot flush (middleware wrapping it the naive way)
	// took the event all the same: it reaches the client when the
	// response ends, so the stream goes on (said once in the log).
	if err != nil {
		s.cfg.WarnNoFlush(s.resp.w)
	}
	if e.HasID {
		s.events.sent = s.events.seq
	}
}

// deferrable reports whether a notification on the stream may wait for the
// messages after it (NotificationFlushDelay): on a call's stream whose
// response buffers it, not on a held stream (GET, listen, 2024-11-05), which
// a broadcast reaches by the thousand, nor on a parked one, which has no
// buffer to wait in.
func (s *Stream) deferrable() bool {
	if s.cfg.NotifyDelay <= 0 || s.role.Standalone || s.role.Held {
		return false
	}
	_, parked := s.resp.w.(*wire.ParkedWriter)
	return !parked
}

// deferFlushLocked notes events written but not flushed, arming their flush.
func (s *Stream) deferFlushLocked() {
	if s.clock.pending {
		return
	}
	s.clock.pending = true
	if s.clock.flushT == nil {
		s.clock.flushT = time.AfterFunc(s.cfg.NotifyDelay, s.flushPending)
	} else {
		s.clock.flushT.Reset(s.cfg.NotifyDelay)
	}
}

// flushedLocked notes that nothing written waits for a flush any more.
func (s *Stream) flushedLocked() {
	if s.clock.pending {
		s.clock.pending = false
		s.clock.flushT.Stop()
	}
}

// flushPending flushes the pending events, unless a write has since.
func (s *Stream) flushPending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.flushPendingLocked()
}

// flushPendingLocked flushes the pending events under the per-write
// deadline, so that none is left for net/http to write once the handler
// returns, when no deadline is in force. A failed flush detaches the
// response.
func (s *Stream) flushPendingLocked() {
	if !s.clock.pending {
		return
	}
	s.clock.pending = false
	if s.resp.w == nil || s.resp.sw == nil {
		return
	}
	if d := s.cfg.WriteTimeout; d > 0 {
		_ = s.resp.sw.SetWriteDeadline(time.Now().Add(d))
	}
	s.guard.Begin(s.resp.sw)
	err := s.resp.sw.Flush()
	s.guard.End()
	if s.cfg.WriteTimeout > 0 && err == nil {
		_ = s.resp.sw.SetWriteDeadline(time.Time{})
	}
	if err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.detachLocked()
	}
}

// writeJSONLocked writes a JSON answer on the attached response. If the
// server's write timeout was lifted for it, the per-write deadline bounds
// it instead, and the answer is flushed whole under that deadline, with its
// length, so that nothing is left for net/http to write once the handler
// returns, when neither deadline would be in force (a client that stopped
// reading would hold the connection's goroutine for good).
func (s *Stream) writeJSONLocked(status int, body []byte) {
	if s.role.Header != nil {
		s.role.Header(s.resp.w.Header())
	}
	if !s.resp.lifted || s.cfg.WriteTimeout <= 0 {
		WriteJSON(s.resp.w, status, body)
		return
	}
	s.resp.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_ = s.resp.sw.SetWriteDeadline(time.Now().Add(s.cfg.WriteTimeout))
	WriteJSON(s.resp.w, status, body)
	_ = s.resp.sw.Flush()
	_ = s.resp.sw.SetWriteDeadline(time.Time{})
}
