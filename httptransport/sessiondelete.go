package httptransport

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// serveDelete ends the 2025-era session sid (spec 2025-11-25
// basic/transports#session-management).
func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request, sid string) {
	ls := h.sessionOf(w, r, sid)
	if ls == nil {
		return
	}
	defer ls.unpin()
	// The record goes first: if the store cannot delete it, the session
	// lives on (any instance would serve it again), so the client hears
	// that the DELETE failed, and the session here is left alone. The work
	// is done even if the client leaves meanwhile.
	var err error
	h.withStore(context.WithoutCancel(r.Context()), func(ctx context.Context) {
		ls.recMu.Lock() // no save writes the record back meanwhile
		defer ls.recMu.Unlock()
		if err = h.sessions.Delete(ctx, sid); err != nil && !errors.Is(err, ErrNoSession) {
			return
		}
		err = nil
		ls.gone(ctx) // ended here, its events forgotten
	})
	if err != nil {
		h.warn("mcp: deleting the session from the store failed", "session", logval.String(sid), "error", logval.Err(err))
		writeRefusal(w, noID, errSessionUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// checkVersionHeader refuses a GET or DELETE whose MCP-Protocol-Version
// the engine does not support (spec 2025-11-25 basic/transports#protocol-version-header: 400, and a DELETE so refused
// leaves the session alone). A missing header is accepted, as 2025-03-26
// clients send none.
func (h *Handler) checkVersionHeader(r *http.Request) *httpError {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(h.versions(h.engine.Describe(r.Context())), v) {
		return refusal(http.StatusBadRequest, jsonrpc.CodeServerError, "unsupported MCP-Protocol-Version "+v)
	}
	return nil
}
