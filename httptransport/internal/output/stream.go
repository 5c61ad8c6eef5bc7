package output

import (
	"net/http"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/wire"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// Stream is an output that owns an HTTP response: one call's messages go
// to the call's own POST response,
// answered as JSON when nothing precedes the response and as SSE otherwise.
// In 2025-era sessions a stream outlives its HTTP response: its events are
// kept in the EventStore and a GET with Last-Event-ID attaches a new
// response to it. The session's standalone GET stream is a stream too.
//
// All writes happen under mu, from the engine's goroutines and the
// keep-alive timer alike.
type Stream struct {
	cfg    *Config
	mu     sync.Mutex
	role   Role
	accept Accept
	resp   response // the attached HTTP response, if any
	ended  bool     // the final message was written or the stream was cut
	doneC  chan struct{}
	clock  streamClock
	guard  wire.Guard // lets a cancelled call end a write blocked on its client
	events eventLog   // resumability: 2025-era sessions with an EventStore
}

// Role is what a stream is for, set as it is built. The zero value is a
// 2025-era call's stream; Status must be set.
type Role struct {
	// Modern is a 2026-07-28 call's stream.
	Modern bool
	// Standalone is a GET stream: no final response.
	Standalone bool
	// Held is a listen's stream: every message flushes at once (see
	// deferrable).
	Held bool
	// ReqID is the request a POST's stream answers (Cut).
	ReqID jsonrpc.ID
	// Status is the HTTP status of an answer carrying an error, by era.
	Status func(*jsonrpc.Error) int
	// Header adds extra response headers (e.g. Mcp-Session-Id); nil: none.
	Header func(http.Header)
	// EventName is the SSE event name: "message" on 2024-11-05 streams.
	EventName string
}

// response is the HTTP response attached to a stream, and how far it got.
type response struct {
	w         http.ResponseWriter // nil while no response is attached
	sw        *sse.Writer
	open      bool          // SSE status and headers written on w
	lifted    bool          // the server's write timeout is lifted for w (liftLocked)
	liftOnly  bool          // the header flush delay lifts the write timeout, not opens (startTimer)
	closeConn bool          // the stream may be parked: say Connection: close (Park)
	release   func()        // gives back the place in a quota the attached response holds (HoldPlace)
	attachC   chan struct{} // closed and replaced when a response detaches
}

// streamClock holds a stream's timers: the header flush and keep-alives,
// and the flush of coalesced notifications.
type streamClock struct {
	timer   *time.Timer
	pending bool        // events written to the response but not flushed yet (writeLocked)
	flushT  *time.Timer // flushes them (NotificationFlushDelay)
}

// Accept is what a client takes: JSON, SSE, or both.
type Accept struct{ JSON, SSE bool }

// eventLog is a resumable stream's place in its session's events.
type eventLog struct {
	sess    Session
	id      string // stream id, unique in the session
	seq     int    // index of the last event written
	sent    int    // index of the last event written to an attached response
	priming bool   // send a priming event when the SSE stream opens
	record  bool   // store the call's request id with the first event (CallRecord)
}

// AbortWrite ends a write blocked on a client that stopped reading
// (wire.Guard.Abort).
func (s *Stream) AbortWrite() { s.guard.Abort() }

// NewStream returns a stream for role, answering on w (nil: none yet) a
// client that takes what accept says.
func NewStream(cfg *Config, w http.ResponseWriter, accept Accept, role Role) *Stream {
	return &Stream{cfg: cfg, resp: response{w: w}, accept: accept, role: role}
}

// StatusFor is the HTTP status an answer carrying e would go out with
// (see httptransport's CallOutcome.Status).
func (s *Stream) StatusFor(e *jsonrpc.Error) int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.role.Held:
		return 0
	case s.resp.open:
		return http.StatusOK
	}
	return s.role.Status(e)
}

// JoinSession makes the stream session ls's, under id: its events are
// kept for resumption, and with priming it opens with a priming event. A
// call's stream (Role.ReqID) of a session that RecordsCalls keeps its
// CallRecord.
func (s *Stream) JoinSession(ls Session, id string, priming bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events.sess, s.events.id, s.events.priming = ls, id, priming
	s.events.record = !s.role.Standalone && s.role.ReqID.IsValid() && ls.RecordsCalls()
}

// DropHeader takes back the extra response headers (Role.Header) of a
// stream that has not opened: initialize's session id, when the session
// could not be opened.
func (s *Stream) DropHeader() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.role.Header = nil
}

// StartTimer arms the early header flush, or the keep-alive on an open
// stream, unless a timer runs already. A response that cannot open as SSE
// (the client takes only JSON) only has the server's write timeout lifted
// at the header flush delay. r is the request the stream answers: when its
// server's WriteTimeout would pass before the timer fires, or too near it,
// the timeout is lifted at once (see HeaderFlushDelay).
func (s *Stream) StartTimer(r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clock.timer != nil || s.ended {
		return
	}
	d := s.cfg.HeaderFlushDelay
	s.resp.liftOnly = !s.accept.SSE
	if s.resp.open || d == 0 {
		if !s.accept.SSE {
			return
		}
		d, s.resp.liftOnly = s.cfg.KeepAlive, false
	}
	if d <= 0 {
		return
	}
	if !s.resp.open && !s.resp.lifted && s.resp.w != nil && liftNow(r, d) {
		s.liftLocked()
	}
	s.clock.timer = time.AfterFunc(d, s.tick)
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
func (s *Stream) tick() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	if s.resp.w != nil {
		switch {
		case s.resp.open:
			s.writeLocked(sse.Event{IsComment: true})
		case s.resp.liftOnly:
			s.liftLocked()
		default:
			s.openLocked()
		}
	}
	s.resp.liftOnly = false
	if s.cfg.KeepAlive > 0 && s.accept.SSE {
		s.clock.timer.Reset(s.cfg.KeepAlive)
	} else {
		s.clock.timer = nil // done: a response attached later arms its own
	}
}

// Send delivers a notification or server request for the call. Messages
// sent before the client accepts SSE are dropped: without a stream there is
// nowhere to put them.
func (s *Stream) Send(msg *jsonrpc.Message) error {
	data, err := msg.Encode()
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return ErrStreamClosed
	}
	if !s.accept.SSE {
		if msg.IsRequest() {
			return ErrNoStream
		}
		return nil
	}
	if s.resp.w != nil && !s.resp.open {
		s.openForLocked(true, http.StatusOK)
	}
	later := msg.IsNotification() && s.deferrable()
	s.writeEventLocked(sse.Event{ID: s.nextIDLocked(data), HasID: s.resumable(), Name: s.role.EventName, Data: data}, later)
	return nil
}

// SendRaw writes an encoded message as an event, opening the stream.
func (s *Stream) SendRaw(data []byte) { s.SendRawAfter(data, nil) }

// SendRawAfter is sendRaw calling before first, once it holds the stream:
// a relayed answer's place in its quota is given back there, when no
// other write is ahead of it, just before the client can have it.
func (s *Stream) SendRawAfter(data []byte, before func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if before != nil {
		before()
	}
	if s.ended || s.resp.w == nil {
		return
	}
	if !s.resp.open {
		s.openForLocked(true, http.StatusOK)
	}
	s.writeLocked(sse.Event{Name: s.role.EventName, Data: data})
}

// Finish writes the response and ends the stream: as an SSE event if the
// stream is open, otherwise as a JSON body with the era's status.
func (s *Stream) Finish(resp *jsonrpc.Message) {
	data := answerBody(resp)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.endLocked()
	if s.resp.w == nil {
		// Nobody is attached: keep it for a resuming client.
		s.nextIDLocked(data)
		return
	}
	if s.resp.open || (!s.accept.JSON && s.accept.SSE) {
		if !s.resp.open {
			// A client that takes only SSE gets the error's status on it.
			s.openForLocked(true, s.role.Status(resp.Error))
		}
		s.writeLocked(sse.Event{ID: s.nextIDLocked(data), HasID: s.resumable(), Name: s.role.EventName, Data: data})
		s.detachParkedLocked()
		return
	}
	s.writeJSONLocked(s.role.Status(resp.Error), data)
}

// FinishJSON ends the stream with body, a JSON answer (a batch's array).
func (s *Stream) FinishJSON(body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	s.endLocked()
	if s.resp.w != nil && !s.resp.open {
		s.writeJSONLocked(http.StatusOK, body)
	}
}

// Cut ends the stream without a response: the call was cancelled or the
// session ended. A POST still waiting for its answer gets one it can read
// (a body of the content type it asked for, not a bare 200): an SSE stream
// with no event if it takes SSE, a JSON-RPC error saying the request was
// cancelled if it takes only JSON.
//
// A call the server abandons is not one the client cancelled: once
// Shutdown has begun, a call's stream is ended with an error answer
// (ErrServerShutdown) instead, on SSE as in JSON, and kept for a client
// resuming the stream (on another instance, with a shared EventStore), so
// that the client knows to send the request again.
func (s *Stream) Cut() {
	if s.cfg.Closing() && s.role.ReqID.IsValid() && !s.role.Standalone {
		s.Finish(jsonrpc.NewError(s.role.ReqID, ErrServerShutdown))
		return
	}
	s.mu.Lock()
	if s.resp.w != nil && !s.resp.open && !s.ended && !s.role.Standalone {
		if s.accept.SSE {
			s.events.priming = false // nothing follows to resume
			s.openLocked()
		} else {
			s.writeJSONLocked(http.StatusOK, ErrorBody(s.role.ReqID, ErrRequestCancelled))
		}
	}
	s.endLocked()
	s.detachParkedLocked()
	s.mu.Unlock()
}

func (s *Stream) endLocked() {
	if s.ended {
		return
	}
	s.releaseLocked()
	s.ended = true
	if s.clock.timer != nil {
		s.clock.timer.Stop()
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

// Done returns a channel closed when the stream ends. Most 2026-07-28
// streams never need one, so it is made on the first call.
func (s *Stream) Done() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.doneC == nil {
		s.doneC = make(chan struct{})
	}
	return s.doneC
}
