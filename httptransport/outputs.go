package httptransport

import (
	"context"
	"net/http"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// ErrStreamClosed is returned by Call.Send and a session's Sender once the
// stream has ended: the call's response was written, the call was
// cancelled, or the session ended.
var ErrStreamClosed = output.ErrStreamClosed

// ErrNoStream is returned by Call.Send for a server-to-client request when
// the client cannot receive it: its POST accepts only JSON, so the answer
// is the only message that reaches it. (A notification there is dropped,
// and Send returns nil.)
var ErrNoStream = output.ErrNoStream

// callOutput is where a call's messages and its answer go: a stream of its own
// that owns an HTTP response (output.Stream), or another stream that it forwards
// to (output.Relay: a batch member's, a 2024-11-05 call's).
type callOutput interface {
	// Send delivers a notification or a server request of the call.
	Send(msg *jsonrpc.Message) error
	// Finish delivers the answer and ends the output.
	Finish(resp *jsonrpc.Message)
	// Cut ends the output without an answer: the call was cancelled.
	Cut()
	// Done is closed when the output has ended.
	Done() <-chan struct{}
	// StartTimer arms what a response does while the call is silent.
	StartTimer(r *http.Request)
	// AbortWrite ends a write blocked on a client that stopped reading.
	AbortWrite()
	// StatusFor is the HTTP status an answer carrying e would go out
	// with, 0 when it goes out on another stream (observe.go).
	StatusFor(e *jsonrpc.Error) int
}

// newOutputConfig is what the handler's streams and relays share: its
// delays and event store, and its hooks for logging and Shutdown.
func (h *Handler) newOutputConfig() *output.Config {
	return &output.Config{
		HeaderFlushDelay: h.cfg.headerFlushDelay,
		KeepAlive:        h.cfg.keepAlive,
		Retry:            h.cfg.retry,
		WriteTimeout:     h.cfg.writeTimeout,
		NotifyDelay:      h.cfg.notifyDelay,
		Closing:          h.closing.Load,
		Warn:             h.warn,
		WarnNoFlush:      h.warnNoFlush,
		StoreCtx:         h.eventsCtx,
		AppendCtx:        h.appendCtx,
		Events:           h.streamEvents(),
	}
}

// streamEvents is the event store as the streams see it: a user's
// BatchEventStore behind an appendBatcher, any other as it is.
func (h *Handler) streamEvents() output.Store {
	if b, ok := h.cfg.events.(BatchEventStore); ok && !h.cfg.ownEvents {
		return &appendBatcher{store: b, ctx: h.appendCtx}
	}
	return h.cfg.events
}

// appendCtx is the context of an EventStore append: the handler's, which
// Shutdown ends at its deadline, bounded as every call to a user's store
// is. The end of the event's session does not end it: streams are cut,
// waiting for their appends, before a session's events are forgotten.
func (h *Handler) appendCtx() (context.Context, context.CancelFunc) {
	return h.eventsCtx(h.ctx)
}

// newStream returns a stream for role, answering on w (nil: none yet) a
// client that takes what accept says, with its era's error statuses.
func (h *Handler) newStream(w http.ResponseWriter, accept acceptance, role output.Role) *output.Stream {
	role.Status = legacyStatus
	if role.Modern {
		role.Status = modernStatus
	}
	return output.NewStream(h.out, w, output.Accept{JSON: accept.json, SSE: accept.sse}, role)
}

// newRelay returns the output of the call reqID whose messages go to relay
// and its answer to last (relay when nil); sse is whether the client takes
// messages other than the answer (see output.NewRelay).
func (h *Handler) newRelay(reqID jsonrpc.ID, sse bool, relay func([]byte), last func([]byte, func())) *output.Relay {
	return output.NewRelay(h.out, reqID, sse, relay, last)
}

// attachRefusal is the refusal of a GET whose stream could not attach
// (output.Stream.Attach's error).
func attachRefusal(err error) *httpError {
	if err == output.ErrConflict {
		return errStreamConflict
	}
	return errUnknownEventID
}
