package httptransport

import (
	"net/http"
	"slices"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// serveStreamablePost answers a POST under the 2025-era rules (spec 2025-11-25 basic/transports#streamable-http):
// initialize creates a session; every later request names it in
// Mcp-Session-Id; a request without one gets 400 (but see
// serveSessionless) and an unknown one 404.
func (h *Handler) serveStreamablePost(w http.ResponseWriter, r *http.Request, req *request, accept acceptance) {
	first := req.msgs[0]
	if !req.batch {
		if err := req.errs[0]; err != nil {
			writeRefusal(w, first.ID, rpcRefusal(err))
			return
		}
	}
	// With Options.Stateless an Mcp-Session-Id (from an earlier deployment,
	// or a client that kept one) is ignored, as no session is ever minted.
	var sid string
	if !h.cfg.stateless {
		var herr *httpError
		if sid, herr = sessionIDHeader(r); herr != nil {
			writeRefusal(w, noID, herr)
			return
		}
	}
	header := r.Header.Get("Mcp-Protocol-Version")
	if served := h.versions(h.engine.Describe(r.Context())); header != "" && !slices.Contains(served, header) {
		writeRPCError(w, http.StatusBadRequest, first.ID, unsupportedVersion(served, header))
		return
	}
	if slices.ContainsFunc(req.msgs, func(m *jsonrpc.Message) bool { return m.Method == "initialize" }) {
		switch {
		case req.batch:
			writeRefusal(w, noID, errInitInBatch)
		case sid != "":
			writeRefusal(w, first.ID, errReinitialize)
		default:
			h.initialize(w, r, first, accept)
		}
		return
	}
	if sid == "" {
		h.serveSessionless(w, r, req, accept, header)
		return
	}
	ls, herr := h.lookup(r, sid) // records the activity
	if herr != nil {
		writeRefusal(w, first.ID, herr)
		return
	}
	defer ls.unpin()
	// A supported MCP-Protocol-Version that differs from the negotiated one
	// is served under the session's version: spec 2025-11-25
	// basic/transports#protocol-version-header does not say what a server
	// does then, and deployed clients (conformance 0.1.16) send a fixed one.
	if req.batch && ls.sess.Version != Version20250326 {
		writeRefusal(w, noID, errBatchNotAllowed)
		return
	}
	h.serveMessages(&exchange{w: w, r: r, accept: accept, ls: ls, version: ls.sess.Version}, req)
}

// serveSessionless serves a 2025-era POST that names no session: refused
// with 400 (spec 2025-11-25 basic/transports#session-management: a server
// that requires sessions SHOULD), but for Options.Stateless and a plain
// JSON-RPC client (routeOf), which are served on their own, as a 2026-07-28
// request is, at the version the MCP-Protocol-Version header names (spec
// 2025-11-25 basic/transports#protocol-version-header: none means
// 2025-03-26). Without a session the call reaches no session's state, and
// cannot ask the client anything (Call.Send).
func (h *Handler) serveSessionless(w http.ResponseWriter, r *http.Request, req *request, accept acceptance, header string) {
	if !h.cfg.stateless && !accept.plain {
		writeRefusal(w, req.msgs[0].ID, errSessionMissing)
		return
	}
	version := header
	if version == "" {
		version = Version20250326
	}
	if req.batch && version != Version20250326 {
		writeRefusal(w, noID, errBatchNotAllowed)
		return
	}
	h.serveMessages(&exchange{w: w, r: r, accept: accept, version: version}, req)
}
