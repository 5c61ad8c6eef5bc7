package httptransport

import (
	"net/http"
	"strconv"
	"time"

	"github.com/mcpmount/mcpmount/sse"
)

// detachParkedLocked releases a parked connection once its stream has
// ended: no handler is waiting to detach it.
func (s *stream) detachParkedLocked() {
	if _, ok := s.w.(*parkedWriter); ok {
		s.detachLocked()
	}
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
