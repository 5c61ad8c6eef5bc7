package httptransport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Observer watches what the transport does, for traces and metrics: the
// calls it hands the engine, the sessions and held streams it opens and
// ends, and what it refuses or drops. Set it in Options.Observer (nil, the
// default, observes nothing and costs nothing); package
// github.com/mcpmount/mcpmount/otelmcp implements it with OpenTelemetry,
// so that this package imports none.
//
// Its methods are called from many goroutines at once, on the paths that
// serve requests: they must be safe for concurrent use, and quick.
type Observer interface {
	// StartCall is called as the engine is about to serve a call (every
	// JSON-RPC request of every era, initialize and a 2026-07-28 listen
	// included), on the goroutine that serves it. ctx is the call's
	// context, which carries the HTTP request's values (an HTTP server
	// span among them). The context StartCall returns is the one the
	// engine serves the call with: a span put in it is the parent of the
	// engine's and the tool handler's spans. end is called once, when the
	// engine has answered (or panicked, or the call was cancelled),
	// before the answer is written; it may be nil.
	StartCall(ctx context.Context, call *CallInfo) (context.Context, func(CallOutcome))

	// Observe reports something the transport did other than a call:
	// see EventKind. ctx is the request's or the session's, when there is
	// one, else a background context.
	Observe(ctx context.Context, e Event)
}

// Transport names the HTTP transport a call or event came over.
type Transport string

// The transports of the protocol's eras.
const (
	// TransportModern is 2026-07-28: every request on its own POST,
	// without sessions.
	TransportModern Transport = "2026-07-28"
	// TransportStreamable is the 2025-era Streamable HTTP transport, with
	// sessions or without (Options.Stateless, a plain JSON-RPC client that
	// sends no session id).
	TransportStreamable Transport = "streamable-http"
	// TransportSSE is the 2024-11-05 HTTP+SSE transport: a GET event
	// stream and POSTs to the endpoint it names.
	TransportSSE Transport = "sse"
)

// CallInfo describes a call for an Observer. The transport builds it for
// the observer only; the observer must not modify or keep it past end.
type CallInfo struct {
	// Method is the request's method (tools/call, resources/read...).
	Method string
	// ID is the request's JSON-RPC id.
	ID jsonrpc.ID
	// Params are the request's params as the client sent them (name, uri,
	// arguments, _meta with traceparent...); nil when it sent none.
	Params json.RawMessage
	// Version is the protocol version in force (see Call.Version).
	Version string
	// SessionID is the call's session id, or "" without a session.
	SessionID string
	// Transport is the era's transport.
	Transport Transport
	// Header is the HTTP request's header: do not modify it.
	Header http.Header
	// RemoteAddr is the address of the connection's peer ("ip:port", see
	// http.Request.RemoteAddr), or "" when unknown.
	RemoteAddr string
	// Proto is the HTTP request's protocol ("HTTP/1.1", "HTTP/2.0"), or
	// "" when unknown.
	Proto string
}

// CallOutcome is how a call ended, given to the end function StartCall
// returned.
type CallOutcome struct {
	// Response is the answer to write: a result or a JSON-RPC error. It
	// is the engine's, or the transport's for an error the engine
	// returned, a nil answer or a panic. Do not modify it.
	Response *jsonrpc.Message
	// Cancelled reports that the call's context ended first (the client
	// left, cancelled, or the session or handler ended): no answer is
	// written.
	Cancelled bool
	// Status is the HTTP status the answer goes out with when it is its
	// POST's own response and the response has not started yet: at
	// 2026-07-28, 404 for -32601 and 400 for the header and version
	// errors; 200 for an answer on a stream already open; 0 for an answer
	// that goes out on another stream (a batch's, a 2024-11-05 session's
	// event stream) or for a held listen.
	Status int
	// Held reports a 2026-07-28 listen the engine holds open (ErrHold):
	// the stream lives on, reported as a held stream (EventStreamOpened).
	Held bool
}

// EventKind is what an Event reports.
type EventKind int

// The kinds of Event.
const (
	// EventSessionOpened: a 2025-era or 2024-11-05 session starts being
	// served on this instance (SessionID, Version, Transport).
	EventSessionOpened EventKind = iota + 1
	// EventSessionClosed: a session opened here ended here (SessionID).
	EventSessionClosed
	// EventStreamOpened: a held stream opened (Stream).
	EventStreamOpened
	// EventStreamClosed: a held stream ended (Stream).
	EventStreamClosed
	// EventRefused: a request was refused before the engine saw it
	// (Status, Reason; Name is the tool for a per-tool rate limit).
	EventRefused
	// EventDropped: a message for the client or the engine was dropped
	// because a queue was full (Reason; see ReportDropped).
	EventDropped
	// EventEvicted: the default event store evicted an event to stay in
	// its bounds, so that stream can no longer be resumed from before it.
	EventEvicted
	// EventRelayFailed: publishing a message to a session's other
	// instances (SessionRelay) failed (SessionID).
	EventRelayFailed
)

// StreamKind names a kind of held stream.
type StreamKind string

// The held streams.
const (
	StreamListen StreamKind = "listen" // a 2026-07-28 subscriptions/listen
	StreamGet    StreamKind = "get"    // a 2025-era session's GET stream
	StreamSSE    StreamKind = "sse"    // a 2024-11-05 session's event stream
)

// Event is one thing the transport reports to Observer.Observe. Only the
// fields its Kind names are set.
type Event struct {
	Kind      EventKind
	SessionID string
	Version   string
	Transport Transport
	Stream    StreamKind
	// Status is a refusal's HTTP status.
	Status int
	// Reason is a short, fixed word for a refusal ("rate_limited",
	// "session_not_found"...) or a drop ("reply_queue_full"...), never a
	// value taken from the request.
	Reason string
	// Name is the tool a per-tool rate limit refused.
	Name string
}

// observerKey carries the Observer in the contexts handed to the engine,
// for ReportDropped.
type observerKey struct{}

// ReportDropped tells the transport's Observer, if ctx carries one, that
// a message was dropped because a queue was full. Engines call it with a
// context the transport gave them (a call's or a session's); reason is a
// short fixed word ("outbox_full", say). Without an Observer it does
// nothing.
func ReportDropped(ctx context.Context, reason string) {
	if o, ok := ctx.Value(observerKey{}).(Observer); ok {
		o.Observe(ctx, Event{Kind: EventDropped, Reason: reason})
	}
}

// peerKey carries what the observer learns of the HTTP request in the
// request's context (observeRequest).
type peerKey struct{}

type peerInfo struct {
	remote, proto string
}

// observeCall wraps a call for the Observer: it returns the context to
// serve it with and the function that reports its outcome.
func (h *Handler) observeCall(ctx context.Context, call *Call) (context.Context, func(resp *jsonrpc.Message, err error)) {
	info := &CallInfo{
		Method:    call.Request.Method,
		ID:        call.Request.ID,
		Params:    call.Request.Params,
		Version:   call.Version,
		Header:    call.Header,
		Transport: TransportStreamable,
	}
	switch {
	case call.Modern():
		info.Transport = TransportModern
	case call.Session != nil && call.Session.Legacy:
		info.Transport = TransportSSE
	}
	if call.Session != nil {
		info.SessionID = call.Session.ID
	}
	if p, ok := ctx.Value(peerKey{}).(*peerInfo); ok {
		info.RemoteAddr, info.Proto = p.remote, p.proto
	}
	octx, end := h.cfg.observer.StartCall(ctx, info)
	if octx == nil {
		octx = ctx
	}
	octx = context.WithValue(octx, observerKey{}, h.cfg.observer)
	return octx, func(resp *jsonrpc.Message, err error) {
		if end == nil {
			return
		}
		out := CallOutcome{Cancelled: ctx.Err() != nil, Held: errors.Is(err, ErrHold)}
		if !out.Held {
			out.Response = responseOf(call.Request.ID, resp, err)
			out.Status = call.out.StatusFor(out.Response.Error)
		}
		end(out)
	}
}

// observe reports e to the Observer, if there is one.
func (h *Handler) observe(ctx context.Context, e Event) {
	if h.cfg.observer != nil {
		h.cfg.observer.Observe(ctx, e)
	}
}

// observeSession reports a session opened or ended here.
func (h *Handler) observeSession(ls *liveSession, opened bool) {
	if h.cfg.observer == nil {
		return
	}
	e := Event{Kind: EventSessionClosed, SessionID: ls.id, Version: ls.sess.Version, Transport: TransportStreamable}
	if ls.sess.Legacy {
		e.Transport = TransportSSE
	}
	if opened {
		e.Kind = EventSessionOpened
	}
	h.cfg.observer.Observe(ls.ctx, e)
}

// noop is what observeStream returns without an Observer.
func noop() {}

// observeStream reports a held stream of kind opened, and returns what
// reports it closed (once however often it is called).
func (h *Handler) observeStream(ctx context.Context, kind StreamKind) func() {
	o := h.cfg.observer
	if o == nil {
		return noop
	}
	o.Observe(ctx, Event{Kind: EventStreamOpened, Stream: kind})
	return sync.OnceFunc(func() {
		o.Observe(context.WithoutCancel(ctx), Event{Kind: EventStreamClosed, Stream: kind})
	})
}

// evictHook is the default event store's options, reporting evictions to
// o; nil (defaults) without an Observer.
func evictHook(o Observer) *MemoryEventStoreOptions {
	if o == nil {
		return nil
	}
	return &MemoryEventStoreOptions{OnEvict: func() {
		o.Observe(context.Background(), Event{Kind: EventEvicted})
	}}
}
