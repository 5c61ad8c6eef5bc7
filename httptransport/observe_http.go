package httptransport

import (
	"context"
	"net/http"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// observedWriter is the response writer of a request served with an
// Observer: it notes the refusal written on it, reported as the request
// ends. It unwraps (http.ResponseController, flush.go, park.go) to the
// server's writer.
type observedWriter struct {
	http.ResponseWriter
	status int    // a refusal's status, 0 when none was written
	reason string // and its reason
	name   string // the tool a per-tool rate limit refused
}

// Unwrap returns the server's writer. observedWriter has no Flush of its
// own: flushing, deadlines and hijacking go through Unwrap, so that
// wire.CanFlush still sees a writer that cannot flush for what it is.
func (w *observedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observeRequest prepares a request served with an Observer: its writer
// notes refusals, its context carries the peer's address and protocol for
// the calls it makes. done reports the refusal, if any, as the request
// ends.
func (h *Handler) observeRequest(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, func()) {
	ow := &observedWriter{ResponseWriter: w}
	r = r.WithContext(context.WithValue(r.Context(), peerKey{}, &peerInfo{remote: r.RemoteAddr, proto: r.Proto}))
	return ow, r, func() {
		if ow.status != 0 {
			h.cfg.observer.Observe(r.Context(), Event{Kind: EventRefused, Status: ow.status, Reason: ow.reason, Name: ow.name})
		}
	}
}

// noteRefusal records, on a writer that observes, the refusal written on
// it.
func noteRefusal(w http.ResponseWriter, status int, reason string) {
	if ow, ok := w.(*observedWriter); ok {
		ow.status, ow.reason = status, reason
	}
}

// refusalReason is the Event.Reason of a refusal: a fixed word for each
// of the transport's refusals, else one for its status.
func refusalReason(e *httpError) string {
	if r, ok := refusalReasons[e]; ok {
		return r
	}
	switch e.status {
	case http.StatusBadRequest:
		return "bad_request"
	case http.StatusNotFound:
		return "not_found"
	case http.StatusForbidden:
		return "forbidden"
	case http.StatusMethodNotAllowed:
		return "method_not_allowed"
	case http.StatusServiceUnavailable:
		return "unavailable"
	}
	return "refused"
}

// rpcRefusalReason is the Event.Reason of a 2026-07-28 request refused
// with a JSON-RPC error before the engine ran (serveModern's checks).
func rpcRefusalReason(e *jsonrpc.Error) string {
	switch e.Code {
	case jsonrpc.CodeHeaderMismatch:
		return "header_mismatch"
	case jsonrpc.CodeUnsupportedProtocolVersion:
		return "unsupported_version"
	case jsonrpc.CodeInvalidParams:
		return "invalid_meta"
	}
	return "bad_request"
}

var refusalReasons = map[*httpError]string{
	errBodyTooLarge:       "body_too_large",
	errBodyTimeout:        "body_timeout",
	errContentType:        "content_type",
	errNotAcceptable:      "not_acceptable",
	errNotAcceptableSSE:   "not_acceptable",
	errForbiddenOrigin:    "origin",
	errForbiddenHost:      "host",
	errCannotFlush:        "cannot_flush",
	errCannotFlushGet:     "cannot_flush",
	errShuttingDown:       "shutting_down",
	errTooManyCalls:       "calls_per_principal",
	errTooManyStreams:     "streams_per_principal",
	errTooManySessions:    "sessions_per_principal",
	errBatchOverQuota:     "batch_over_quota",
	errSessionMissing:     "session_missing",
	errSessionNotFound:    "session_not_found",
	errSessionUnavailable: "session_unavailable",
	errSessionStore:       "session_store",
	errInstanceSessions:   "instance_sessions",
	errSessionHeader:      "session_header",
	errSessionsOff:        "sessions_off",
	errStreamConflict:     "stream_conflict",
	errUnknownEventID:     "unknown_event_id",
	errBatchNotAllowed:    "batch_not_allowed",
	errInitInBatch:        "init_in_batch",
	errReinitialize:       "reinitialize",
	errModernGet:          "method_not_allowed",
	errBareGet:            "bare_get",
	errModernBody:         "bad_request",
	errStatelessGet:       "sessions_off",
	errNoLegacy:           "method_not_allowed",
}
