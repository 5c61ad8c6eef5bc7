package httptransport

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// The transport's refusals, each with its one HTTP status and JSON-RPC code.
// Rules of the spec are cited as "spec <version> <page>[#section]": the page at
// https://modelcontextprotocol.io/specification/<version>/<page>.
var (
	errBodyTooLarge     = refusal(http.StatusRequestEntityTooLarge, jsonrpc.CodeInvalidRequest, "request body too large")
	errBodyTimeout      = refusal(http.StatusRequestTimeout, jsonrpc.CodeInvalidRequest, "request body not received in time") // Options.BodyTimeout; 408 is RFC 9110 section 15.5.9
	errContentType      = refusal(http.StatusUnsupportedMediaType, jsonrpc.CodeInvalidRequest, "Content-Type must be application/json")
	errNotAcceptable    = refusal(http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "Accept must allow application/json or text/event-stream")
	errNotAcceptableSSE = refusal(http.StatusNotAcceptable, jsonrpc.CodeInvalidRequest, "Accept must allow text/event-stream")
	errForbiddenOrigin  = refusal(http.StatusForbidden, jsonrpc.CodeInvalidRequest, "origin not allowed")
	errForbiddenHost    = refusal(http.StatusForbidden, jsonrpc.CodeInvalidRequest, "host not allowed")
	errCannotFlush      = refusal(http.StatusInternalServerError, jsonrpc.CodeInternalError, "the server cannot stream: its response writer does not flush")
	errCannotFlushGet   = refusal(http.StatusMethodNotAllowed, jsonrpc.CodeServerError, "the server offers no GET stream: its response writer does not flush") // a 2025-era GET gets SSE or 405 (spec 2025-11-25 basic/transports#listening-for-messages-from-the-server)
	errShuttingDown     = refusal(http.StatusServiceUnavailable, jsonrpc.CodeServerError, "server shutting down")
	// Per-principal bounds (Options.MaxCallsPerPrincipal, MaxStreamsPerPrincipal): our choice, 429.
	errTooManyCalls    = refusal(http.StatusTooManyRequests, jsonrpc.CodeServerError, "too many calls in flight for this principal")
	errTooManyStreams  = refusal(http.StatusTooManyRequests, jsonrpc.CodeServerError, "too many open streams for this principal")
	errTooManySessions = refusal(http.StatusTooManyRequests, jsonrpc.CodeServerError, "too many open sessions for this principal")
	errBatchOverQuota  = refusal(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "the batch holds more requests than one principal may have in flight")
	// 2025 sessions (spec 2025-11-25 basic/transports#session-management): 400 without an id, 404 for unknown ones.
	errSessionMissing  = refusal(http.StatusBadRequest, jsonrpc.CodeServerError, "Mcp-Session-Id header required")
	errSessionNotFound = refusal(http.StatusNotFound, jsonrpc.CodeSessionNotFound, "session not found")
	// Our choice: a session the store or the engine could not bring up here
	// is not known to be gone, so no 404 (which makes clients start over).
	errSessionUnavailable = refusal(http.StatusServiceUnavailable, jsonrpc.CodeServerError, "session temporarily unavailable")
	// Our choices, 503 with Retry-After: a session that could not be stored
	// is not announced, and the instance's session bound (Options.MaxSessions,
	// MaxSessionsPerAddress) had no idle session to end for a new one.
	errSessionStore     = refusal(http.StatusServiceUnavailable, jsonrpc.CodeServerError, "could not store the session; try again")
	errInstanceSessions = refusal(http.StatusServiceUnavailable, jsonrpc.CodeServerError, "the server holds as many sessions as it may; try again later")
	errSessionHeader    = refusal(http.StatusBadRequest, jsonrpc.CodeServerError, "Mcp-Session-Id must appear once and hold visible ASCII")
	errSessionsOff      = refusal(http.StatusMethodNotAllowed, jsonrpc.CodeServerError, "sessions are disabled on this endpoint")
	errStreamConflict   = refusal(http.StatusConflict, jsonrpc.CodeServerError, "the session's stream is already open")
	errUnknownEventID   = refusal(http.StatusBadRequest, jsonrpc.CodeServerError, "Last-Event-ID names no stream of this session")
	errBatchNotAllowed  = refusal(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "batches are accepted only from 2025-03-26 clients")
	errInitInBatch      = refusal(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "initialize must not be part of a batch")
	errReinitialize     = refusal(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "session already initialized")
	errBareGet          = refusal(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "this is an MCP endpoint: POST JSON-RPC messages to it, or GET it with Accept: text/event-stream to open an HTTP+SSE stream")
	errModernGet        = refusal(http.StatusMethodNotAllowed, jsonrpc.CodeServerError, "method not allowed")
	errModernBody       = refusal(http.StatusBadRequest, jsonrpc.CodeInvalidRequest, "a 2026-07-28 body must be one request or notification")

	// Our choice: a GET that would open a stream this endpoint does not
	// offer (sessions off, or no 2024-11-05) says which transport to use.
	errStatelessGet = refusal(http.StatusMethodNotAllowed, jsonrpc.CodeServerError, "sessions are disabled on this endpoint, so Streamable HTTP has no GET stream here: POST only; an HTTP+SSE (2024-11-05) client's GET must name no MCP-Protocol-Version, or 2024-11-05")
	errNoLegacy     = refusal(http.StatusMethodNotAllowed, jsonrpc.CodeServerError, "this endpoint does not serve HTTP+SSE (2024-11-05): use Streamable HTTP, POST to this URL")
)

// httpError is a refusal with its HTTP status and JSON-RPC error.
type httpError struct {
	status int
	rpc    *jsonrpc.Error
}

func (e *httpError) Error() string { return e.rpc.Message }

func refusal(status int, code int64, msg string) *httpError {
	return &httpError{status: status, rpc: jsonrpc.Errorf(code, msg)}
}

// writeRefusal answers with e's status and its JSON-RPC error, echoing id
// when it could be read.
func writeRefusal(w http.ResponseWriter, id jsonrpc.ID, e *httpError) {
	if e.status == http.StatusTooManyRequests || e == errSessionUnavailable || e == errSessionStore || e == errInstanceSessions {
		w.Header().Set("Retry-After", "1")
	}
	noteRefusal(w, e.status, refusalReason(e))
	output.WriteJSON(w, e.status, output.ErrorBody(id, e.rpc))
}

// writeRPCError answers with status and a JSON-RPC error.
func writeRPCError(w http.ResponseWriter, status int, id jsonrpc.ID, e *jsonrpc.Error) {
	noteRefusal(w, status, rpcRefusalReason(e))
	output.WriteJSON(w, status, output.ErrorBody(id, e))
}

// modernStatus is the HTTP status of a 2026-07-28 response carrying err
// (spec 2026-07-28 basic#error-codes). Errors the spec does not pin get 200: the JSON-RPC body
// carries them.
func modernStatus(err *jsonrpc.Error) int {
	if err == nil {
		return http.StatusOK
	}
	switch err.Code {
	case jsonrpc.CodeMethodNotFound:
		return http.StatusNotFound
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest,
		jsonrpc.CodeHeaderMismatch, jsonrpc.CodeMissingRequiredClientCapability,
		jsonrpc.CodeUnsupportedProtocolVersion:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// legacyStatus is the HTTP status of a 2025-era response carrying err: 200
// for everything the engine answers, so that no error but a gone session is
// ever a 404 (spec 2025-11-25 basic/transports#session-management) and clients never fall back on an unknown method.
func legacyStatus(err *jsonrpc.Error) int {
	if err != nil && (err.Code == jsonrpc.CodeParseError || err.Code == jsonrpc.CodeInvalidRequest) {
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// asRPCError converts an engine error into a JSON-RPC error.
func asRPCError(err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error")
}

// unsupportedVersion is the -32022 error with the versions served and the
// one requested (spec 2026-07-28 basic/transports/streamable-http).
func unsupportedVersion(supported []string, requested string) *jsonrpc.Error {
	data, _ := json.Marshal(struct {
		Supported []string `json:"supported"`
		Requested string   `json:"requested"`
	}{supported, requested})
	return &jsonrpc.Error{Code: jsonrpc.CodeUnsupportedProtocolVersion, Message: "unsupported protocol version " + requested, Data: data}
}
