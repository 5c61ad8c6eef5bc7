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
	// before it runs the engine. It is called for every request, so it
	// must be cheap: cache the answer and refresh it when tools change.
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
	// nothing more is written for the call.
	//
	// A returned error becomes a -32603 internal error response; an error
	// response proper is returned as a message with Error set.
	Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error)

	// Notify delivers a client notification other than
	// notifications/cancelled, which the transport handles itself. sess is
	// nil for notifications that arrive outside any session.
	Notify(ctx context.Context, sess *Session, msg *jsonrpc.Message)

	// OpenSession is called when a 2025-era or 2024-11-05 session starts
	// serving on this instance: after initialize succeeds, or when a
	// session created elsewhere is first used here. Messages that belong
	// to no call (list changes, resource updates, requests such as
	// roots/list, whose answers come back through SessionReplier) go to
	// out, which feeds the session's standalone stream. ctx is cancelled
	// when the session ends on this instance.
	OpenSession(ctx context.Context, sess *Session, out Sender) error
}

// SessionReplier is implemented by engines that send requests through a
// session's Sender, outside any call (roots/list from an initialized
// handler, say): the client's answers to them arrive at Reply, with the ids
// the engine gave the requests. Without it such answers are dropped.
type SessionReplier interface {
	Reply(ctx context.Context, sess *Session, msg *jsonrpc.Message)
}

// Sender takes messages to deliver to a client.
type Sender interface {
	// Send delivers msg, or returns an error if the stream is gone.
	Send(ctx context.Context, msg *jsonrpc.Message) error
}

// Description is what the transport needs to know of an engine to validate
// requests before answering them.
type Description struct {
	// Versions lists the protocol versions the engine serves. The
	// transport serves the ones it also knows. Empty means all of them.
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
