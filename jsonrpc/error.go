package jsonrpc

import (
	"encoding/json"
	"strconv"
)

// Error codes of JSON-RPC 2.0 and of MCP (basic/index "Error Codes").
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeSessionNotFound is the implementation-defined code (in the legacy
	// -32000..-32019 range) sent with a 404 for an unknown or expired
	// 2025-era session, as the TypeScript SDK does.
	CodeSessionNotFound = -32001
	// CodeServerError is the implementation-defined code for transport-level
	// refusals of legacy requests (bad protocol version header, server
	// shutting down, ...).
	CodeServerError = -32000
	// CodeHeaderMismatch is 2026-07-28's HeaderMismatch: a required standard
	// header is missing, invalid or differs from the body.
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability is 2026-07-28's code for a
	// request that needs a client capability the request did not declare.
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion is 2026-07-28's code for a protocol
	// version the server does not serve.
	CodeUnsupportedProtocolVersion = -32022
)

// Error is the error object of a JSON-RPC response.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error implements the error interface.
func (e *Error) Error() string {
	return "jsonrpc error " + strconv.FormatInt(e.Code, 10) + ": " + e.Message
}

// Errorf is a shorthand for an *Error with the given code and message.
func Errorf(code int64, message string) *Error { return &Error{Code: code, Message: message} }
