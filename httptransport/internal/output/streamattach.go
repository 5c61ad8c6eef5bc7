package output

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/wire"
	"github.com/mcpmount/mcpmount/sse"
)

// detachParkedLocked releases a parked connection once its stream has
// ended: no handler is waiting to detach it.
func (s *Stream) detachParkedLocked() {
	if _, ok := s.resp.w.(*wire.ParkedWriter); ok {
		s.detachLocked()
	}
}

// Detach releases the HTTP response; the handler returns right after.
func (s *Stream) Detach() {
	s.mu.Lock()
	s.detachLocked()
	s.mu.Unlock()
}

// DetachIf releases the response if it is still w.
func (s *Stream) DetachIf(w http.ResponseWriter) {
	s.mu.Lock()
	if s.resp.w == w {
		s.detachLocked()
	}
	s.mu.Unlock()
}

// DetachAttached detaches the response that attach bound with the
// channel c, if it is still attached (a stream whose time is up, see
// httptransport's Handler.streamLimit). A 2025-11-25 session's resumable stream first
// gets a server-side disconnect event (spec 2025-11-25 basic/transports#resumability-and-redelivery): a fresh id to resume
// from and when to come back. Clients count a reconnect that brings no
// new id as a failed one and give up the session after a few.
func (s *Stream) DetachAttached(c <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resp.attachC == nil || (<-chan struct{})(s.resp.attachC) != c {
		return
	}
	s.releaseLocked()
	if s.resp.open && !s.ended && s.resumable() && s.events.sess.Disconnects() {
		s.writeLocked(sse.Event{ID: s.nextIDLocked(nil), HasID: true, Retry: s.reconnectAfter()})
	}
	s.detachLocked()
}

// reconnectAfter is the retry a server-side disconnect asks for:
// Options.RetryInterval, or a second.
func (s *Stream) reconnectAfter() time.Duration {
	if s.cfg.Retry > 0 {
		return s.cfg.Retry
	}
	return time.Second
}

// HoldPlace has the attached response hold a place in a principal's quota,
// which release gives back when the client can first see the stream end
// (a listen's); mayPark says it may be taken over from net/http
// (Park), so its headers say Connection: close.
func (s *Stream) HoldPlace(release func(), mayPark bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resp.release, s.resp.closeConn = release, mayPark
}

// releaseLocked gives back the place in its principal's quota that the
// attached response holds, before anything tells the client that the
// response or the stream ended: a client may come back at once.
func (s *Stream) releaseLocked() {
	if r := s.resp.release; r != nil {
		s.resp.release = nil
		r()
	}
}

func (s *Stream) detachLocked() {
	s.releaseLocked()
	s.flushPendingLocked()
	if s.clock.flushT != nil {
		s.clock.flushT.Stop()
	}
	if s.resp.w == nil {
		return
	}
	if pw, ok := s.resp.w.(*wire.ParkedWriter); ok {
		pw.Close() // the watcher (httptransport's park.go) sees it and cleans up
	}
	s.resp.w, s.resp.sw, s.resp.open = nil, nil, false
	if s.resp.attachC != nil {
		close(s.resp.attachC)
		s.resp.attachC = nil
	}
}

// Attach binds a resuming GET's response to the stream, replaying the
// events after index. The events in first are written before anything
// else can reach the stream (a 2024-11-05 stream's endpoint event). It
// fails if another response is attached. release, if not nil, gives back
// the response's place in its principal's quota (HoldPlace).
func (s *Stream) Attach(w http.ResponseWriter, after int, replay, closeConn bool, release func(), first ...sse.Event) (detached <-chan struct{}, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resp.w != nil {
		return nil, ErrConflict
	}
	s.resp.closeConn = closeConn
	// A standalone stream opened afresh (no Last-Event-ID) first gets what
	// the session sent while no GET was there to take it, if the store
	// still has it (a request from an initialized handler, say).
	undelivered := !replay && s.role.Standalone && s.events.sent < s.events.seq
	if undelivered {
		replay, after = true, s.events.sent
	}
	var events [][]byte
	// A client that has the stream's last event misses nothing: no need
	// to ask the store, which may have let the stream's events go.
	if replay && after != s.events.seq && s.cfg.Events != nil && s.events.sess != nil {
		ctx, cancel := s.storeCtx()
		events, err = s.cfg.Events.After(ctx, s.events.sess.ID(), s.events.id, after)
		cancel()
		if err != nil && !undelivered {
			return nil, ErrUnknownEventID
		}
		err = nil
	}
	s.resp.w, s.resp.sw = w, sse.NewWriter(w)
	s.resp.release = release
	s.accept.SSE = true
	s.resp.open, s.resp.lifted, s.resp.liftOnly = false, false, false
	// Open without a priming event: the client already has an id.
	s.events.priming = false
	s.openLocked()
	for _, e := range first {
		s.writeLocked(e)
	}
	for i, data := range events {
		if len(data) == 0 {
			continue // a priming event
		}
		s.writeLocked(sse.Event{ID: s.events.id + "_" + strconv.Itoa(after+1+i), HasID: true, Data: data})
	}
	s.resp.attachC = make(chan struct{})
	return s.resp.attachC, nil
}

// ID is the stream's id in its session, set by JoinSession before the
// stream is shared, and read without its lock: a session's lock may be
// held (see the lock order in httptransport's handler.go).
func (s *Stream) ID() string { return s.events.id }

// Standalone reports whether the stream is a session's GET stream.
func (s *Stream) Standalone() bool { return s.role.Standalone }

// LastIndex is the index of the last event written to the stream.
func (s *Stream) LastIndex() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.events.seq
}

// Attached reports whether a response is attached to the stream.
func (s *Stream) Attached() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resp.w != nil
}

// TakeUndelivered returns the events of a standalone stream written while
// no response was attached, which the next GET here would have replayed,
// and counts them delivered: they are forwarded to a GET elsewhere. It
// needs the EventStore, where they wait; without one they were not kept.
func (s *Stream) TakeUndelivered(ctx context.Context) (kept []KeptEvent, first int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resp.w != nil || s.events.sent >= s.events.seq || s.cfg.Events == nil || s.events.sess == nil {
		return nil, 0
	}
	events, err := s.cfg.Events.After(ctx, s.events.sess.ID(), s.events.id, s.events.sent)
	if err != nil {
		return nil, 0
	}
	first = s.events.sent
	for i, data := range events {
		if len(data) > 0 { // not a priming event
			kept = append(kept, KeptEvent{Index: first + 1 + i, Data: data})
		}
	}
	s.events.sent = s.events.seq
	return kept, first
}

// KeptEvent is a message a standalone stream kept for the next GET, and
// its index in the stream.
type KeptEvent struct {
	Index int
	Data  []byte
}

// KeepFrom undoes takeUndelivered from index on (its forwarding failed):
// those events wait for the next GET again, unless a response attached
// meanwhile or the stream went on past them (taken up since).
func (s *Stream) KeepFrom(taken, index int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.resp.w == nil && s.events.sent >= index-1 && s.events.sent > taken {
		s.events.sent = index - 1
	}
}
