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
// names, what a POST's answers may be, and for actRefuse the refusal and
// the Allow header to send with it, if any.
type route struct {
	act    action
	sid    string
	accept acceptance
	herr   *httpError
	allow  string
}

func refuse(herr *httpError, allow string) route {
	return route{act: actRefuse, herr: herr, allow: allow}
}

var errMethodNotAllowed = refusal(http.StatusMethodNotAllowed, -32000, "method not allowed")

// routeOf decides what r is, in every era:
//
//   - POST to ?sessionId=: a 2024-11-05 client's message (spec 2024-11-05
//     basic/transports#http-with-sse); any other POST is served by its
//     body's era, and by its Accept (postAccept) as a Streamable HTTP or a
//     plain JSON-RPC client's.
//   - GET without a session id or Last-Event-ID: the 2024-11-05 handshake
//     (legacyHandshake), or the refusal of a 2025-era standalone stream
//     without a session.
//   - GET or DELETE naming a version later than the 2025 eras, without a
//     session: 405 (2026-07-28 has no GET stream and no sessions), or 400
//     for a version not served (spec 2025-11-25
//     basic/transports#protocol-version-header).
//   - any other GET: a 2025-era session's stream, new or resumed (spec
//     2025-11-25 basic/transports#listening-for-messages-from-the-server).
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
		return route{act: actPost, accept: h.postAccept(r)}
	case http.MethodGet:
		if bareGet(r) {
			return refuse(errBareGet, "")
		}
		if h.legacyHandshake(r) {
			return route{act: actLegacyGet}
		}
	case http.MethodDelete:
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
	switch {
	case sid == "" && r.Header.Get("Last-Event-Id") == "" && h.cfg.stateless:
		// A 2025-era client's standalone stream needs a session.
		return refuse(errStatelessGet, "POST")
	case sid == "" && r.Header.Get("Last-Event-Id") == "":
		return refuse(errSessionMissing, "")
	case h.cfg.stateless:
		return refuse(errSessionsOff, "POST")
	}
	return route{act: actStreamGet, sid: sid}
}

// bareGet reports whether GET r names no session, resumes no stream and
// takes text/event-stream only through a wildcard or no Accept at all: a
// browser, a health check or `curl URL`, not an MCP client. Every MCP client's GET asks for an event
// stream by name (spec 2024-11-05 basic/transports#http-with-sse uses
// Server-Sent Events, whose clients send Accept: text/event-stream; spec
// 2025-11-25 basic/transports#listening-for-messages-from-the-server
// requires it), and such a GET would otherwise open a 2024-11-05 stream
// that never ends. Our choice: 400 with a message that says what the URL
// takes (health checks belong on a path of their own).
func bareGet(r *http.Request) bool {
	if len(r.Header.Values("Mcp-Session-Id")) > 0 || r.Header.Get("Last-Event-Id") != "" {
		return false
	}
	a, namesSSE := parseAccept(r)
	return a.sse && !namesSSE // one that refuses it gets 406, as before
}

// legacyHandshake reports whether GET r opens a 2024-11-05 event stream
// (spec 2024-11-05 basic/transports#http-with-sse): it names no session and
// resumes no stream, and it names no MCP-Protocol-Version or 2024-11-05,
// or it accepts text/event-stream, whatever version it names. A 2025-era
// client's standalone GET carries the session id initialize gave it (spec
// 2025-11-25 basic/transports#session-management) and 2026-07-28 clients
// send no GET (spec 2026-07-28 basic/transports/streamable-http), so
// nothing else can be meant: some 2024-11-05 clients name their newest
// version on every request (the AI SDK's SSE transport names 2025-11-25).
// That holds only where 2025-era clients have session ids to send: with
// Options.Stateless they have none, and Options.RequireSessionID asks for
// the strict rule, so there a version other than 2024-11-05 decides.
func (h *Handler) legacyHandshake(r *http.Request) bool {
	if len(r.Header.Values("Mcp-Session-Id")) > 0 || r.Header.Get("Last-Event-Id") != "" {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v == "" || v == Version20241105 {
		return true
	}
	return !h.cfg.stateless && !h.cfg.requireSessionID && acceptsSSE(r)
}

// postAccept is what a POST's answers may be. A POST whose Accept does not
// name text/event-stream is a plain JSON-RPC client's, by our choice: the
// spec's Streamable HTTP clients must name it (spec 2025-11-25
// basic/transports#sending-messages-to-the-server). Such a client is
// answered with JSON only, with 204 where a Streamable HTTP client gets
// 202, and without a session id it is served on its own, as with
// Options.Stateless (serveSessionless). With Options.RequireSessionID
// every client is a Streamable HTTP client.
func (h *Handler) postAccept(r *http.Request) acceptance {
	a, namesSSE := parseAccept(r)
	if namesSSE || !a.json || h.cfg.requireSessionID {
		return a
	}
	return acceptance{json: true, plain: true}
}
