package httptransport

import (
	"fmt"
	"net/http"

	"github.com/mcpmount/mcpmount/httptransport/internal/wire"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// refuseUnflushable answers a request for a held stream (a session's GET
// stream, a 2024-11-05 event stream, a 2026-07-28 listen) with e when w
// cannot flush, since nothing of the stream would ever reach the client,
// and logs the cause once. It reports whether it refused.
func (h *Handler) refuseUnflushable(w http.ResponseWriter, id jsonrpc.ID, e *httpError) bool {
	if wire.CanFlush(w) {
		return false
	}
	if e.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", "POST, DELETE")
	}
	h.warnNoFlush(w)
	writeRefusal(w, id, e)
	return true
}

// warnNoFlush logs, once per handler, that w cannot flush: held streams
// are refused, and a call's stream reaches its client only when it ends.
func (h *Handler) warnNoFlush(w http.ResponseWriter) {
	h.noFlush.Do(func() {
		h.cfg.logger.Error("mcp: the response writer cannot flush, so held event streams are refused and a call's stream reaches its client only when the call ends: a middleware in front of the handler wraps the http.ResponseWriter without Flush or Unwrap", "writer", fmt.Sprintf("%T", w))
	})
}
