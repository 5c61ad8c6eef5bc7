package httptransport

import "net/http"

// action is what ServeHTTP does with a request, decided once by routeOf
// from the request line and headers alone. A POST's body then decides
// between the 2026-07-28 and 2025-era rules (classify).
type action int

const (
	actRefuse     action = iota // answered with the route's refusal
	actPost                     // a POST to the endpoint: 2026-07-28 or 2025-era, by its body
	actLegacyPost               // a 2024-11-05 client's POST, to ?sessionId=
	actLegacyGet                // a GET opening a 2024-11-05 event stream
	actStreamGet                // a 2025-era session's GET stream, new or resumed
	actDelete                   // a DELETE ending a 2025-era session
)

// route is routeOf's answer: the action, the session a GET or DELETE
// names, and for actRefuse the refusal and the Allow header to send with
// it, if any.
type route struct {
	act   action
	sid   string
	herr  *httpError
	allow string
}

func refuse(herr *httpError, allow string) route {
	return route{act: actRefuse, herr: herr, allow: allow}
}

var errMethodNotAllowed = refusal(http.StatusMethodNotAllowed, -32000, "method not allowed")

// routeOf decides what r is, in every era:
//
//   - POST to ?sessionId=: a 2024-11-05 client's message (spec 2024-11-05
//     basic/transports#http-with-sse); any other POST is served by its
//     body's era.
//   - GET or DELETE naming a version later than the 2025 eras, without a
//     session: 405 (2026-07-28 has no GET stream and no sessions), or 400
//     for a version not served (spec 2025-11-25
//     basic/transports#protocol-version-header).
//   - GET without a session id or Last-Event-ID, at 2024-11-05 or naming
//     no version: the 2024-11-05 handshake; any other GET a 2025-era
//     session's stream (spec 2025-11-25
//     basic/transports#listening-for-messages-from-the-server).
//   - DELETE: ends the 2025-era session it names (spec 2025-11-25
//     basic/transports#session-management).
//
// With Options.Stateless, GET streams and DELETE are refused with 405.
func (h *Handler) routeOf(r *http.Request) route {
	switch r.Method {
	case http.MethodPost:
		if r.URL.RawQuery != "" && r.URL.Query().Has(legacySessionParam) {
			return route{act: actLegacyPost}
		}
		return route{act: actPost}
	case http.MethodGet, http.MethodDelete:
	default:
		return refuse(errMethodNotAllowed, "GET, POST, DELETE, OPTIONS")
	}
	if modernHeader(r) && r.Header.Get("Mcp-Session-Id") == "" {
		if herr := h.checkVersionHeader(r); herr != nil {
			return refuse(herr, "")
		}
		return refuse(errModernGet, "POST")
	}
	sid, herr := sessionIDHeader(r)
	if herr != nil {
		return refuse(herr, "")
	}
	if r.Method == http.MethodDelete {
		switch {
		case h.cfg.stateless:
			return refuse(errSessionsOff, "")
		case sid == "":
			return refuse(errSessionMissing, "")
		}
		return route{act: actDelete, sid: sid}
	}
	if sid == "" && r.Header.Get("Last-Event-Id") == "" {
		switch v := r.Header.Get("Mcp-Protocol-Version"); {
		case v == "" || v == Version20241105:
			return route{act: actLegacyGet}
		case h.cfg.stateless:
			// A 2025-era client's standalone stream needs a session.
			return refuse(errSessionsOff, "POST")
		default:
			return refuse(errSessionMissing, "")
		}
	}
	if h.cfg.stateless {
		return refuse(errSessionsOff, "POST")
	}
	return route{act: actStreamGet, sid: sid}
}
