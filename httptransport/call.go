package httptransport

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// ErrServerRequest is returned by Call.Send for a server-to-client request
// where the era forbids them: 2026-07-28 (use an input_required result
// instead) and stateless 2025-era calls, which have no way back.
var ErrServerRequest = errors.New("httptransport: server-to-client requests are not available for this call")

// Call is one inbound JSON-RPC request, handed to Engine.Serve with its own
// outbound stream.
type Call struct {
	// Request is the client's request.
	Request *jsonrpc.Message
	// Version is the protocol version in force: the request's own for
	// 2026-07-28, the session's negotiated one for 2025-era sessions, the
	// MCP-Protocol-Version header (or 2025-03-26) for stateless 2025-era
	// calls.
	Version string
	// Session is the call's session, or nil for 2026-07-28 and stateless
	// calls.
	Session *Session
	// Header is the HTTP request's header.
	Header http.Header

	out     output
	live    *liveSession
	replies chan *jsonrpc.Message
	ctx     context.Context // the call's own context
	cancel  context.CancelFunc

	stopLimit func() bool  // stops a held listen's time limit, if it has one
	srv       *http.Server // a listen's server, whose Shutdown ends it (serverwatch.go)

	streamClosed func() // reports a held listen closed to the Observer (observe.go)
}

// Modern reports whether the call is served under 2026-07-28 rules.
func (c *Call) Modern() bool { return c.Version >= Version20260728 }

// Send delivers a notification related to the call, or, in 2025-era
// sessions, a server-to-client request whose answer arrives on Replies.
// Messages go to this call's stream only. Send fails once the call has
// ended or been cancelled (ErrStreamClosed, or ctx's error), and for a
// request the client cannot receive (ErrServerRequest, ErrNoStream). A
// notification to a client whose POST accepts only JSON is dropped, and
// Send returns nil. Send is safe for concurrent use and writes
// synchronously (see Sender).
func (c *Call) Send(ctx context.Context, msg *jsonrpc.Message) error {
	if msg.IsRequest() {
		if c.Modern() || c.live == nil {
			return ErrServerRequest
		}
		out := *msg
		out.ID = c.live.registerRequest(c, msg.ID)
		msg = &out
	} else if msg.Method == "notifications/cancelled" && c.live != nil {
		msg = c.live.cancelledOut(c, msg)
	}
	err := ctx.Err()
	if err == nil && c.ctx != nil && c.ctx.Err() != nil {
		err = ErrStreamClosed
	}
	if err == nil {
		err = c.out.send(msg)
	}
	if err != nil && msg.IsRequest() {
		c.live.forgetRequest(msg.ID) // no answer can come to a request not sent
	}
	return err
}

// Replies returns the channel on which the client's answers to this call's
// server-to-client requests arrive, with the ids the engine gave them. It
// is nil where server-to-client requests are unavailable. It holds 8
// answers: receive them as they come (answers past 8 unreceived are
// dropped). It is never closed: select on the call's ctx as well.
func (c *Call) Replies() <-chan *jsonrpc.Message { return c.replies }
