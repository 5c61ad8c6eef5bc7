package httptransport

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// ErrServerRequest is returned by Call.Send for a server-to-client request
// where the era forbids them: 2026-07-28 (use an input_required result
// instead) and 2025-era calls without a session (Options.Stateless, a
// plain JSON-RPC client that sent no session id), which have no way back.
var ErrServerRequest = errors.New("httptransport: server-to-client requests are not available for this call")

// errNoSessionRequest is ErrServerRequest for a 2025-era call without a
// session (Options.Stateless, a plain JSON-RPC client that sent no session
// id), saying why.
var errNoSessionRequest = fmt.Errorf("%w: asking the client needs a session (the Mcp-Session-Id initialize answered with), and this request carried none", ErrServerRequest)

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

	out     callOutput
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
		switch {
		case c.Modern():
			return ErrServerRequest
		case c.live == nil:
			return errNoSessionRequest
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
		err = c.out.Send(msg)
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

// runCall serves one 2025-era request on st. In a session the engine runs
// on a context detached from the HTTP request: a dropped connection does
// not cancel a 2025-era call (spec 2025-11-25 basic/transports#sending-messages-to-the-server); notifications/cancelled and the
// end of the session do. A stateless call (Options.Stateless) has no
// session to carry notifications/cancelled or a resumed stream, so its
// dropped POST cancels it.
//
// The call runs on the POST's goroutine, whose stack net/http has grown
// already: a goroutine of its own would grow a fresh stack and cost two
// switches a call. If the client leaves first, the stream lets the
// response go at once (a session call's messages wait for a resumed
// stream) and the handler returns when the call ends.
func (h *Handler) runCall(x *exchange, m *jsonrpc.Message, st *output.Stream) {
	run := h.startCall(x, m, st)
	if run == nil {
		return
	}
	stop := context.AfterFunc(x.r.Context(), st.Detach)
	run()
	stop()
	st.Detach()
}

// startCall readies a call and returns what runs the engine on it and
// delivers its answer, on the caller's goroutine or one of its own, or nil
// if the call was refused (already answered). The caller took the call's
// place in the principal's quota (h.calls); the call gives it back when it
// ends.
func (h *Handler) startCall(x *exchange, m *jsonrpc.Message, out callOutput) (run func()) {
	r, ls, version := x.r, x.ls, x.version
	parent, base := h.ctx, r.Context()
	if ls != nil {
		// A session call outlives its POST (spec 2025-11-25 basic/transports#sending-messages-to-the-server): the client may
		// resume its stream, or cancel it with notifications/cancelled.
		parent, base = ls.ctx, context.WithoutCancel(base)
	}
	// Without a session (Options.Stateless) neither is possible: the call
	// ends with its POST, as a 2026-07-28 call does.
	ctx, cancel := context.WithCancel(base)
	// A write blocked on a client that stopped reading ends with the call
	// (wire.Guard): here when the session or the handler ends, in
	// cancelCall on notifications/cancelled.
	stop := context.AfterFunc(parent, func() { cancel(); out.AbortWrite() })
	owner := h.calls.owner(r.Context())
	call := &Call{Request: m, Version: version, Header: r.Header.Clone(), out: out, ctx: ctx, cancel: cancel}
	if ls != nil {
		call.Session, call.live = ls.sess, ls
		call.replies = make(chan *jsonrpc.Message, 8)
		// A call's own stream is one of the session's, which a client can
		// resume; a relayed call's messages are its carrier's.
		st, own := out.(*output.Stream)
		if own {
			ls.newCallStream(st)
		}
		if rerr := ls.addCall(call); rerr != nil {
			if own {
				ls.dropStream(st)
			}
			h.calls.give(owner, 1)
			stop()
			cancel()
			out.Finish(jsonrpc.NewError(m.ID, rerr))
			return nil
		}
	}
	// A 2024-11-05 answer goes out on the session's one event stream,
	// where answers queue behind a write to a client that stopped reading:
	// such a call keeps its place until its answer is next to be written
	// (then the event stream gives it back: output.Relay.HoldPlace), or the
	// queue would be unbounded.
	ro, relayed := out.(*output.Relay)
	relayed = relayed && ls != nil && ls.sess.Legacy
	release := func() { h.calls.give(owner, 1) }
	if relayed {
		release = sync.OnceFunc(release)
		ro.HoldPlace(release)
	}
	out.StartTimer(r)
	h.inflight.enterLate()
	return func() {
		defer h.inflight.exit()
		defer stop()
		defer cancel()
		h.serveCall(call, release, relayed)
	}
}

// serveCall runs the engine on a started call and delivers its answer,
// or cuts its output if it was cancelled. release gives back the call's
// place in its principal's quota; relayed says a 2024-11-05 call's
// output.Relay gives it back, just before its answer's write.
func (h *Handler) serveCall(call *Call, release func(), relayed bool) {
	ctx, ls, out := call.ctx, call.live, call.out
	resp, err := h.serveEngine(ctx, call) // recovers the engine's panics
	resp = responseOf(call.Request.ID, resp, err)
	// The call's place in the quota and its id are free, and its store
	// work (the state it changed, the record it outlasted) is done, before
	// its answer goes out: the client may send its next call, reuse the
	// id, or reach another instance as soon as it has the answer.
	if !relayed {
		release()
	}
	if ls != nil {
		ls.releaseID(call)
		ls.afterCall(context.WithoutCancel(ctx))
	}
	if ctx.Err() != nil {
		out.Cut() // cancelled: no response follows (spec 2025-11-25 basic/utilities/cancellation)
	} else {
		out.Finish(resp)
	}
	if relayed {
		release() // if the answer was never relayed (cut, or the stream gone)
	}
	if ls != nil {
		ls.removeCall(call)
	}
}
