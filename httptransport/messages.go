package httptransport

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// serveMessages handles the messages of a 2025-era POST: answers to server
// requests go to the calls that asked, notifications to the engine (or,
// for notifications/cancelled, to the call they name), and requests become
// calls. An answer or a cancellation for a call on another instance goes
// there through the store's SessionRelay, if it has one (sessionrelay.go).
// Without requests the answer is 202 (spec 2025-11-25
// basic/transports#sending-messages-to-the-server, P4), or 204 to a plain
// JSON-RPC client (acceptance.ackStatus). A batch (2025-03-26) is answered
// as JSON-RPC answers batches: one response per request, and an error for
// each member that is not a valid message (with its id when it has one,
// else null), as an array or as SSE events.
func (h *Handler) serveMessages(x *exchange, req *request) {
	w, r, ls, accept := x.w, x.r, x.ls, x.accept
	var (
		calls   []*jsonrpc.Message
		refused [][]byte // error responses to a batch's invalid members
	)
	if h.calls != nil && !h.admitCalls(w, r, req) {
		return
	}
	for i, m := range req.msgs {
		switch {
		case req.errs[i] != nil:
			if !req.batch {
				writeRefusal(w, m.ID, rpcRefusal(req.errs[i]))
				return
			}
			// Batches are 2025-03-26 only, whose schema requires an id:
			// null when it cannot be read, as JSON-RPC 2.0 says.
			id := m.ID
			if !id.IsValid() {
				id = jsonrpc.NullID()
			}
			refused = append(refused, output.ErrorBody(id, rpcRefusal(req.errs[i]).rpc))
		case m.IsResponse():
			if ls != nil && ls.deliverReply(m) == replyNotPending {
				h.relayReply(r.Context(), ls, m)
			}
		case m.IsNotification():
			h.notify(r.Context(), ls, m)
		default:
			calls = append(calls, m)
		}
	}
	if ls != nil {
		h.withStore(r.Context(), ls.save)
	}
	switch {
	case len(calls) == 0 && len(refused) == 0:
		w.WriteHeader(accept.ackStatus())
	case !req.batch:
		st := h.newStream(w, accept, output.Role{ReqID: calls[0].ID})
		h.runCall(x, calls[0], st)
	default:
		h.serveBatch(x, calls, refused)
	}
}

// notify handles a client notification in a session.
func (h *Handler) notify(ctx context.Context, ls *liveSession, m *jsonrpc.Message) {
	if m.Method == "notifications/cancelled" {
		if id, ok := cancelledID(m); ok && ls != nil && !ls.cancelCall(id) {
			h.relayCancel(ctx, ls, id)
		}
		return
	}
	var sess *Session
	if ls != nil {
		sess = ls.sess
	}
	h.survive("Notify", m.Method, func() { h.engine.Notify(ctx, sess, m) })
}

// serveBatch serves a 2025-03-26 batch of requests on one SSE stream, each
// response an event, or as a JSON array for clients that take no SSE. The
// errors for the batch's invalid members (refused) come first.
func (h *Handler) serveBatch(x *exchange, calls []*jsonrpc.Message, refused [][]byte) {
	w, r, accept := x.w, x.r, x.accept
	batch := h.newStream(w, acceptance{json: !accept.sse, sse: accept.sse}, output.Role{})
	// The header flush and keep-alives of a silent batch, or, for a JSON
	// answer, the lift of the server's WriteTimeout.
	batch.StartTimer(r)
	var (
		mu        sync.Mutex
		collected []json.RawMessage
		answered  bool // the JSON array is out: later answers go nowhere
	)
	relay := func(data []byte) {
		if accept.sse {
			batch.SendRaw(data)
			return
		}
		mu.Lock()
		if !answered {
			collected = append(collected, data)
		}
		mu.Unlock()
	}
	for _, data := range refused {
		relay(data)
	}
	dones := make([]<-chan struct{}, 0, len(calls))
	for _, m := range calls {
		// Members take what the batch takes: over SSE everything relays,
		// as JSON only the responses (send drops the rest).
		sub := h.newRelay(m.ID, accept.sse, relay, nil)
		if run := h.startCall(x, m, sub); run != nil {
			go run()
			dones = append(dones, sub.Done())
		}
	}
	for _, d := range dones {
		select {
		case <-d:
		case <-r.Context().Done():
		}
	}
	if accept.sse {
		batch.Cut()
		batch.Detach()
		return
	}
	// The client may have left with calls still running, which relay on.
	mu.Lock()
	answered = true
	body, _ := json.Marshal(collected)
	mu.Unlock()
	batch.FinishJSON(body)
	batch.Detach()
}
