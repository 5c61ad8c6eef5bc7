package httptransport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

const methodListen = "subscriptions/listen"

// serveModern answers a 2026-07-28 POST, validating it before the engine
// runs, so that every failure gets the status and code of spec 2026-07-28
// basic#error-codes before anything is streamed: steps 1 to 4 in the order
// of the conformance suite's reference server (modelcontextprotocol/
// conformance, src/mock-server/stateless.ts), then the standard
// headers, before the engine looks the method up (the reference server
// checks no headers; the spec fixes no order):
//
//  1. MCP-Protocol-Version missing, or params holding _meta, name, uri,
//     arguments or a _meta version key twice (repeated or in another
//     case): 400, -32020.
//  2. params._meta without protocolVersion or clientCapabilities: 400, -32602.
//  3. header and _meta versions differ: 400, -32020.
//  4. version not served: 400, -32022 with the versions served.
//  5. Mcp-Method, Mcp-Name and Mcp-Param-* against the body: 400, -32020.
//  6. the engine runs; -32601 from it answers 404.
//
// The call's context is the HTTP request's: a client dropping the request
// cancels exactly this call (spec 2026-07-28 basic/utilities/cancellation), and nothing of the call is
// written after (the stream ends without an event, which nobody reads).
func (h *Handler) serveModern(w http.ResponseWriter, r *http.Request, req *request, accept acceptance) {
	m := req.msgs[0]
	version, ok := h.admitModern(w, r, req, accept)
	if !ok {
		return
	}
	listen := m.Method == methodListen
	if listen && accept.sse && h.refuseUnflushable(w, m.ID, errCannotFlush) {
		return
	}
	q, over := h.calls, errTooManyCalls
	if listen {
		q, over = h.streams, errTooManyStreams
	}
	owner := q.owner(r.Context())
	if !q.take(owner, 1) {
		refuseOverQuota(w, over)
		return
	}
	release := q.place(owner)
	ctx, cancel, unwatch := callContext(r, listen)
	st := h.newStream(w, accept, output.Role{Modern: true, ReqID: m.ID, Held: listen})
	// Shutdown ends a write blocked on a client that stopped reading
	// (wire.Guard); a client that drops the request closes it anyway.
	stop := context.AfterFunc(h.ctx, func() { cancel(); st.AbortWrite() })
	if listen {
		// A listen's place is its stream: given back as the client sees
		// it end. A call's is given back when the engine is done with it.
		st.HoldPlace(release, h.parkable(r))
	}
	call := &Call{Request: m, Version: version, Header: r.Header, out: st, ctx: ctx, cancel: cancel}
	if listen {
		h.openListen(r, st, call)
	}
	st.StartTimer(r)
	resp, err := h.serveEngine(ctx, call)
	if !listen && release != nil {
		release() // before the answer goes out: the client may call again at once
	}
	if listen && errors.Is(err, ErrHold) {
		end := func() { h.endModern(call, stop, true, release) }
		if unwatch() && h.parkListen(w, r, st, call, end) {
			return // the stream lives on; end runs when it ends (park.go)
		}
		select {
		case <-ctx.Done():
		case <-r.Context().Done():
		}
		cancel()
	}
	defer h.endModern(call, stop, listen, release)
	if ctx.Err() != nil {
		st.Cut()
		st.Detach()
		return
	}
	st.Finish(responseOf(m.ID, resp, err))
	st.Detach()
}

// admitModern checks a 2026-07-28 POST before its call starts, answering
// it and reporting false when nothing is to run: a malformed message or a
// response gets its refusal, a notification 202, or 204 to a plain
// JSON-RPC client (acceptance.ackStatus; no client notification is defined
// over 2026-07-28 HTTP; spec 2026-07-28 basic/transports/streamable-http
// lets the server accept and ignore it), and a request failing its
// version, _meta or standard headers 400. It returns the request's
// protocol version.
func (h *Handler) admitModern(w http.ResponseWriter, r *http.Request, req *request, accept acceptance) (string, bool) {
	m := req.msgs[0]
	switch {
	case req.errs[0] != nil:
		writeRefusal(w, m.ID, rpcRefusal(req.errs[0]))
		return "", false
	case m.IsResponse():
		writeRefusal(w, m.ID, errModernBody)
		return "", false
	case m.IsNotification():
		w.WriteHeader(accept.ackStatus())
		return "", false
	}
	desc := h.engine.Describe(r.Context())
	version, rerr := h.checkModern(r, req.params, desc)
	if rerr == nil {
		rerr = checkStandardHeaders(r.Header, m, req.params, desc)
	}
	if rerr != nil {
		writeRPCError(w, http.StatusBadRequest, m.ID, rerr)
		return "", false
	}
	return version, true
}

// openListen registers a listen's call among the open listens, which
// Shutdown (the handler's or its server's) ends with their final result,
// and arms its time limit (streamLimit); one that arrives as Shutdown
// ends the listens is ended at once, as they were.
func (h *Handler) openListen(r *http.Request, st *output.Stream, call *Call) {
	call.streamClosed = h.observeStream(r.Context(), StreamListen)
	watch := h.watchServer(r)
	if watch != nil {
		call.srv = watch.srv
	}
	h.mu.Lock()
	h.listens[st] = call
	late := h.closing.Load() || watch.isDownLocked()
	h.mu.Unlock()
	if late {
		finishListen(call) // as they ended; the engine sees a cancelled call
	} else if d, ok := h.streamLimit(r); ok {
		// When its time is up it ends with its final result, as at
		// Shutdown, whether the engine holds it or blocks.
		call.stopLimit = time.AfterFunc(d, func() { finishListen(call) }).Stop
	}
}

// endModern releases a 2026-07-28 call's context, its place in the
// principal's quota (if its stream has not: release) and, for a listen,
// its place among the open listens.
func (h *Handler) endModern(call *Call, stop func() bool, listen bool, release func()) {
	call.cancel()
	stop()
	if release != nil {
		release()
	}
	if !listen {
		return
	}
	if call.streamClosed != nil {
		call.streamClosed()
	}
	if call.stopLimit != nil {
		call.stopLimit()
	}
	h.mu.Lock()
	if st, ok := call.out.(*output.Stream); ok {
		delete(h.listens, st)
	}
	h.mu.Unlock()
}

// callContext returns a 2026-07-28 call's context. It is the request's,
// cancelled when the client drops the request (spec 2026-07-28 basic/utilities/cancellation), except that a
// listen stream's context outlives the handler so that the stream can be
// parked: it keeps the request's values and follows its cancellation until
// unwatch, which reports false if the request had ended already.
func callContext(r *http.Request, listen bool) (ctx context.Context, cancel context.CancelFunc, unwatch func() bool) {
	if !listen {
		ctx, cancel = context.WithCancel(r.Context())
		return ctx, cancel, nil
	}
	ctx, cancel = context.WithCancel(context.WithoutCancel(r.Context()))
	return ctx, cancel, context.AfterFunc(r.Context(), cancel)
}

// checkModern runs steps 1 to 4 of serveModern and returns the version.
func (h *Handler) checkModern(r *http.Request, p *reqParams, desc *Description) (string, *jsonrpc.Error) {
	header := r.Header.Values("Mcp-Protocol-Version")
	if len(header) != 1 || header[0] == "" {
		return "", headerMismatch("MCP-Protocol-Version header must appear once")
	}
	if p != nil && p.ambiguous != "" {
		// Decoders differ on which of the two counts (the Go SDK's takes
		// the exact name, encoding/json any case, both the last): no header
		// can be said to mirror it.
		return "", headerMismatch("params hold " + strconv.Quote(p.ambiguous) + " more than once (repeated, or in another case)")
	}
	if p == nil || p.Meta == nil || p.Meta.ProtocolVersion == nil || p.Meta.ClientCapabilities == nil {
		return "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "params._meta must carry io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities")
	}
	version, err := jsonString(p.Meta.ProtocolVersion)
	if err != nil {
		return "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "io.modelcontextprotocol/protocolVersion must be a string")
	}
	if caps := bytes.TrimSpace(p.Meta.ClientCapabilities); len(caps) == 0 || caps[0] != '{' {
		return "", jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "io.modelcontextprotocol/clientCapabilities must be an object")
	}
	if header[0] != version {
		return "", headerMismatch("MCP-Protocol-Version header differs from params._meta")
	}
	// A 2025-era version in _meta is refused here too: those versions are
	// served through initialize, never per request.
	if version < Version20260728 || !slices.Contains(h.versions(desc), version) {
		return "", unsupportedVersion(h.versions(desc), version)
	}
	return version, nil
}

// versions lists the versions served: those the engine serves that the
// transport knows, newest first.
// The list is shared: callers must not modify it.
func (h *Handler) versions(desc *Description) []string {
	if desc == nil || len(desc.Versions) == 0 {
		return allVersions
	}
	if c := h.versionsFor.Load(); c != nil && c.desc == desc {
		return c.list
	}
	list := slices.DeleteFunc(slices.Clone(allVersions), func(v string) bool { return !slices.Contains(desc.Versions, v) })
	h.versionsFor.Store(&versionsCache{desc: desc, list: list})
	return list
}

// allVersions are the versions the transport knows, newest first.
var allVersions = []string{Version20260728, Version20251125, Version20250618, Version20250326, Version20241105}

// versionsCache remembers the versions served for the engine's last
// Description, which engines keep until their tools change.
type versionsCache struct {
	desc *Description
	list []string
}

// responseOf is the response to write for an engine's answer.
func responseOf(id jsonrpc.ID, resp *jsonrpc.Message, err error) *jsonrpc.Message {
	switch {
	case err != nil:
		return jsonrpc.NewError(id, asRPCError(err))
	case resp == nil:
		return jsonrpc.NewError(id, jsonrpc.Errorf(jsonrpc.CodeInternalError, "engine returned no response"))
	}
	return resp
}

// listenResult is the final result of a subscriptions/listen stream ended
// gracefully by the server (spec 2026-07-28 basic/lifecycle).
func listenResult(id jsonrpc.ID) *jsonrpc.Message {
	result := `{"resultType":"complete","_meta":{"io.modelcontextprotocol/subscriptionId":` + id.Raw() + `}}`
	return jsonrpc.NewResponse(id, json.RawMessage(result))
}
