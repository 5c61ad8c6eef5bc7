// Package jsonrpc holds the JSON-RPC 2.0 message type that the mcpmount
// transport and its engines exchange, with the decoding rules of the MCP
// specification (basic/index "Messages") in one place.
//
// Messages keep their params, result and id as raw JSON: the transport reads
// only what it must validate, and engines decode the rest once.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpmount/mcpmount/internal/jsonobj"
	"github.com/mcpmount/mcpmount/internal/jsonscan"
)

// Version is the only JSON-RPC version MCP speaks.
const Version = "2.0"

// Message is one JSON-RPC 2.0 message: a request (Method and ID), a
// notification (Method, no ID) or a response (ID and exactly one of Result
// and Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      ID              `json:"id,omitzero"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// IsRequest reports whether m is a request: it has a method and an id.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID.IsValid() }

// IsNotification reports whether m is a notification: a method and no id.
func (m *Message) IsNotification() bool { return m.Method != "" && !m.ID.IsValid() }

// IsResponse reports whether m is a response: no method.
func (m *Message) IsResponse() bool { return m.Method == "" }

// NewResponse returns a success response to the request with id.
func NewResponse(id ID, result json.RawMessage) *Message {
	return &Message{JSONRPC: Version, ID: id, Result: result}
}

// NewError returns an error response to the request with id; a zero id
// leaves the id out, as the 2025-11-25 and 2026-07-28 schemas allow when the
// request's id could not be read.
func NewError(id ID, err *Error) *Message {
	return &Message{JSONRPC: Version, ID: id, Error: err}
}

// NewNotification returns a notification with the given method and params.
func NewNotification(method string, params json.RawMessage) *Message {
	return &Message{JSONRPC: Version, Method: method, Params: params}
}

// Encode returns the compact JSON form of m, which never contains a raw
// newline (so it fits one SSE data line).
func (m *Message) Encode() ([]byte, error) {
	if b, ok := m.appendFast(nil); ok {
		return b, nil
	}
	return m.encodeSlow()
}

// encodeSlow is Encode by encoding/json, without HTML escaping: raw values
// (ids, params, results) go out as they came in, so an id such as "<a>"
// comes back byte for byte.
func (m *Message) encodeSlow() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("jsonrpc: encoding message: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MaxDepth is how deeply Decode and DecodeBatch let objects and arrays
// nest, the message's own object counting as one level: 256. Deeper JSON
// is refused with CodeParseError before anything decodes it, where a
// decoder further on (an engine's schema validation, say) would fail it
// with no clear word.
const MaxDepth = 256

var errTooDeep = &Error{Code: CodeParseError, Message: fmt.Sprintf("parse error: JSON nested more than %d levels deep", MaxDepth)}

// ErrBatch is returned by Decode for a JSON array; use DecodeBatch where
// batches are allowed (2025-03-26 only).
var ErrBatch = errors.New("jsonrpc: batch not allowed")

// Decode parses one JSON-RPC message and checks its shape. It returns an
// *Error with CodeParseError for bad JSON and CodeInvalidRequest for a
// message of the wrong shape; the returned message is non-nil whenever the
// JSON parsed, so that its id can be echoed in the error response.
func Decode(data []byte) (*Message, error) {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) > 0 && data[0] == '[' {
		return nil, ErrBatch
	}
	if jsonscan.DeeperThan(data, MaxDepth) {
		return nil, errTooDeep
	}
	if m, ok := decodeFast(data); ok {
		if err := m.validate(); err != nil {
			return m, err
		}
		return m, nil
	}
	m := new(Message)
	if err := json.Unmarshal(data, m); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || len(data) == 0 {
			return nil, &Error{Code: CodeParseError, Message: "parse error: " + err.Error()}
		}
		// Valid JSON of the wrong shape: keep what id can be read, so the
		// error response can echo it.
		_, id := scanMembers(data)
		return &Message{ID: id}, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + err.Error()}
	}
	if name, id := scanMembers(data); name != "" {
		// encoding/json matched it to a member; JSON-RPC names are exact.
		return &Message{ID: id}, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("invalid request: member %q is not %q (names are case-sensitive)", name, strings.ToLower(name))}
	}
	if err := m.validate(); err != nil {
		return m, err
	}
	return m, nil
}

// memberNames are the members of a JSON-RPC message.
var memberNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// scanMembers reads the JSON object data by its exact member names, as
// JSON-RPC does (encoding/json folds case): folded is the first name that
// differs from a JSON-RPC member's in case only ("" if none), id the last
// exact "id" member, for an error response to echo (zero if absent,
// null or unreadable).
func scanMembers(data []byte) (folded string, id ID) {
	jsonobj.Members(data, func(key string, value json.RawMessage) {
		for _, name := range memberNames {
			if folded == "" && key != name && strings.EqualFold(key, name) {
				folded = key
			}
		}
		if key == "id" {
			id = ID{}
			if v, err := ParseID(value); err == nil && !v.null {
				id = v
			}
		}
	})
	return folded, id
}

// DecodeBatch parses a body that may be a single message or a batch array
// (JSON-RPC batching, which MCP 2025-03-26 requires servers to accept). It
// reports whether the body was an array. An empty array is an invalid
// request. Per-message shape errors are returned in errs at the same index;
// a parse error of the whole body is returned as err.
func DecodeBatch(data []byte) (msgs []*Message, errs []error, isBatch bool, err error) {
	return DecodeBatchMax(data, 0)
}

// DecodeBatchMax is DecodeBatch refusing a batch of more than max members
// (max <= 0: any number) with a -32600 error, before decoding any of them:
// a body of small invalid members ("1,1,1,...") costs a message, an error
// and an answer each, hundreds of times the body's size in all.
func DecodeBatchMax(data []byte, max int) (msgs []*Message, errs []error, isBatch bool, err error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		m, err := Decode(trimmed)
		if m == nil && err != nil {
			return nil, nil, false, err
		}
		return []*Message{m}, []error{err}, false, nil
	}
	if max > 0 {
		if !json.Valid(trimmed) {
			var v any
			err := json.Unmarshal(trimmed, &v) // the syntax error, as below
			return nil, nil, true, &Error{Code: CodeParseError, Message: "parse error: " + err.Error()}
		}
		if n := batchLen(trimmed); n > max {
			return nil, nil, true, &Error{Code: CodeInvalidRequest, Message: fmt.Sprintf("invalid request: a batch of %d messages, more than the %d allowed", n, max)}
		}
	}
	if jsonscan.DeeperThan(trimmed, MaxDepth) {
		return nil, nil, true, errTooDeep
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(trimmed, &raws); err != nil {
		return nil, nil, true, &Error{Code: CodeParseError, Message: "parse error: " + err.Error()}
	}
	if len(raws) == 0 {
		return nil, nil, true, &Error{Code: CodeInvalidRequest, Message: "invalid request: empty batch"}
	}
	msgs = make([]*Message, len(raws))
	errs = make([]error, len(raws))
	for i, raw := range raws {
		m, err := Decode(raw)
		if errors.Is(err, ErrBatch) {
			err = &Error{Code: CodeInvalidRequest, Message: "invalid request: nested batch"}
		}
		if m == nil {
			m = &Message{}
		}
		msgs[i], errs[i] = m, err
	}
	return msgs, errs, true, nil
}

func (m *Message) validate() error {
	switch {
	case m.JSONRPC != Version:
		return &Error{Code: CodeInvalidRequest, Message: `invalid request: "jsonrpc" must be "2.0"`}
	case m.ID.null:
		return &Error{Code: CodeInvalidRequest, Message: "invalid request: id must not be null"}
	case m.Method != "" && (m.Result != nil || m.Error != nil):
		return &Error{Code: CodeInvalidRequest, Message: "invalid request: a request cannot carry a result or an error"}
	case m.Method == "" && !m.ID.IsValid():
		return &Error{Code: CodeInvalidRequest, Message: `invalid request: "method" is missing`}
	case m.Method == "" && (m.Result == nil) == (m.Error == nil):
		return &Error{Code: CodeInvalidRequest, Message: "invalid request: a response carries exactly one of result and error"}
	case m.Params != nil && !isObjectOrArray(m.Params):
		return &Error{Code: CodeInvalidRequest, Message: `invalid request: "params" must be an object`}
	}
	return nil
}

func isObjectOrArray(raw json.RawMessage) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')
}

// batchLen counts the members of a valid JSON array: the commas outside
// strings at its top level, plus one unless it is empty.
func batchLen(arr []byte) int {
	if rest := bytes.TrimLeft(arr[1:], " \t\r\n"); len(rest) > 0 && rest[0] == ']' {
		return 0
	}
	n, depth, inString, escaped := 1, 0, false, false
	for _, c := range arr {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 1:
			n++
		}
	}
	return n
}
