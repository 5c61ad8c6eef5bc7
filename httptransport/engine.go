package httptransport

import (
	"context"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Protocol versions the transport knows, oldest first.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"
)

// Engine is the MCP server logic behind the transport: tools, resources and
// prompts. The transport owns everything that lives on the HTTP wire; the
// engine answers JSON-RPC.
//
// An Engine must be safe for concurrent use.
type Engine interface {
	// Describe reports what the transport validates requests against
	// before it runs the engine. It is called for most requests, so it
	// must be cheap: cache the answer and refresh it when tools change.
	// The transport caches what it derives from a Description by its
	// pointer: treat a returned Description as immutable, and return a new
	// one when it changes.
	Describe(ctx context.Context) *Description

	// Serve handles one inbound request and returns its response.
	//
	// Notifications related to the call (progress, log messages) and, in
	// 2025-era sessions only, server-to-client requests go through
	// call.Send; the transport puts them on this call's stream and nowhere
	// else. Answers to those requests arrive on call.Replies.
	//
	// ctx is cancelled when the call is cancelled: for 2026-07-28 when the
	// client drops the HTTP request, for 2025-era calls on
	// notifications/cancelled or when the session ends. After ctx is done
	// nothing the engine sends for the call is written (a POST still
	// waiting for its answer gets an SSE stream with no event, or a -32800
	// error if its client takes only JSON). A Serve that does not return
	// holds its principal's place among calls in flight
	// (Options.MaxCallsPerPrincipal) and keeps Handler.Shutdown waiting
	// until its deadline.
	//
	// The response goes out with the ID it has: set it to the request's.
	// A returned error becomes an error response: with the code and
	// message of a *jsonrpc.Error in its chain (errors.As), else -32603
	// internal error; so does a nil response with a nil error. Panics are
	// recovered as -32603. Serve may keep call.Request; call.Header may be
	// the request's own map: copy it to keep it past Serve.
	//
	// For a session, Serve may run while OpenSession for that session is
	// still running (another request arrived meanwhile); for a 2025-era
	// session, initialize is served before OpenSession (call.Session set),
	// for a 2024-11-05 one after it (the GET opened the session).
	Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error)

	// Notify delivers a 2025-era or 2024-11-05 client notification other
	// than notifications/cancelled, which the transport handles itself.
	// sess is nil for notifications that arrive outside any session.
	// 2026-07-28 defines no client notifications over HTTP: those are
	// acknowledged (202) and not delivered. Notify runs on the POST's
	// goroutine, in the body's order and before any call of the same POST
	// starts; the POST is answered, and the session's state saved, after it
	// returns. A panic in it is logged and the POST answered as if it had
	// returned.
	Notify(ctx context.Context, sess *Session, msg *jsonrpc.Message)

	// OpenSession is called when a 2025-era or 2024-11-05 session starts
	// serving on this instance: after initialize succeeds, or when a
	// session created elsewhere is first used here. Messages that belong
	// to no call (list changes, resource updates, requests such as
	// roots/list, whose answers come back through SessionReplier) go to
	// out, which feeds the session's standalone stream. ctx is cancelled
	// when the session ends on this instance. Serve, Notify and Reply get
	// the same *Session until then; an instance that dropped its idle copy
	// of a session and serves it again calls OpenSession again, with a new
	// *Session.
	OpenSession(ctx context.Context, sess *Session, out Sender) error
}

// SessionReplier is implemented by engines that send requests through a
// session's Sender, outside any call (roots/list from an initialized
// handler, say): the client's answers to them arrive at Reply, with the ids
// the engine gave the requests. Without it such answers are dropped. Reply
// runs on the goroutine that received the answer, the client's POST or a
// shared store's relay delivering it from another instance (SessionRelay),
// which delivers nothing else meanwhile: it must not block long.
type SessionReplier interface {
	Reply(ctx context.Context, sess *Session, msg *jsonrpc.Message)
}

// SessionStateObserver is implemented by engines that keep what a session's
// state says beyond the calls that read Session.State (a long-lived
// connection holding the log level for messages sent outside any call,
// say). With a shared SessionStore, SessionStateChanged is called when a
// request finds the state another instance saved newer than this
// instance's copy, before the request is served; Session.State returns the
// new state then. It runs on the request's goroutine and must not block
// long.
type SessionStateObserver interface {
	SessionStateChanged(ctx context.Context, sess *Session)
}

// Sender takes messages to deliver to a client: a session's Sender feeds
// its standalone stream (the 2025-era GET stream, the 2024-11-05 event
// stream). It is safe for concurrent use, and writes synchronously: a send
// waits for a client that reads slowly (Options.WriteTimeout at most) and
// for the EventStore. An engine that sends one message to many sessions or
// listens should not send to them one after another from one goroutine,
// or a client that stopped reading holds up every client after it
// (adapters/gosdk queues each session's messages, and writes listens'
// from a small worker pool).
type Sender interface {
	// Send delivers msg, or returns ErrStreamClosed once the session has
	// ended. While no GET stream is open, a 2025-era session's messages
	// are kept in the EventStore (if resumability is on) and Send returns
	// nil: the next GET stream the client opens, or resumes, gets them if
	// the store still holds them. A request sent then is answered only
	// when the client comes, if ever: give it a deadline.
	Send(ctx context.Context, msg *jsonrpc.Message) error
}

// Description is what the transport needs to know of an engine to validate
// requests before answering them.
type Description struct {
	// Versions lists the protocol versions the engine serves. The
	// transport serves the ones it also knows (without 2024-11-05, a GET
	// that would open a 2024-11-05 session gets 405). Empty means all of
	// them.
	Versions []string

	// ToolHeaders maps a tool name to the arguments it mirrors into
	// Mcp-Param-* headers (the "x-mcp-header" annotation of its input
	// schema), which the transport checks against the body for 2026-07-28
	// tools/call requests.
	ToolHeaders map[string][]HeaderParam
}

// HeaderParam is one tool argument mirrored into a request header.
type HeaderParam struct {
	// Header is the suffix X of the header name Mcp-Param-X.
	Header string
	// Path is the argument's property path inside params.arguments: one
	// element for a top-level property, more for nested objects.
	Path []string
	// Type is the JSON Schema type: "string", "integer" or "boolean".
	Type string
}
