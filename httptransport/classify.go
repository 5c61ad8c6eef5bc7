package httptransport

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// noID is the absent id of errors about requests whose id is unknown.
var noID jsonrpc.ID

// request is a decoded POST body with what the classifier learned.
type request struct {
	modern bool
	batch  bool
	msgs   []*jsonrpc.Message // one, or a batch's members
	errs   []error            // per-message shape errors
	params *reqParams         // of msgs[0], for modern requests
}

// reqParams is the part of params the transport validates; the engine
// decodes the rest.
type reqParams struct {
	Meta      *reqMeta                   `json:"_meta"`
	Name      json.RawMessage            `json:"name"`
	URI       json.RawMessage            `json:"uri"`
	Arguments map[string]json.RawMessage `json:"arguments"`
}

type reqMeta struct {
	ProtocolVersion    json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
}

// classify decodes a POST body and decides its era (digest 2.9):
//
//   - a header naming a version that is not a 2025-era one, or params._meta
//     carrying io.modelcontextprotocol/protocolVersion: 2026-07-28 rules
//     (unknown versions get -32022 there, listing every version served);
//   - anything else (initialize, a session id, a 2025-era header, or
//     nothing at all): the 2025-era Streamable HTTP rules.
//
// Only the request itself is read; nothing is looked up.
func classify(r *http.Request, body []byte) (*request, *httpError) {
	req := &request{}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		msgs, errs, _, err := jsonrpc.DecodeBatch(trimmed)
		if err != nil {
			return nil, rpcRefusal(err)
		}
		req.batch, req.msgs, req.errs = true, msgs, errs
		if modernHeader(r) {
			return nil, errModernBody
		}
		return req, nil
	}
	m, err := jsonrpc.Decode(trimmed)
	if m == nil {
		return nil, rpcRefusal(err)
	}
	req.msgs, req.errs = []*jsonrpc.Message{m}, []error{err}
	if err == nil && m.Method != "" && len(m.Params) > 0 {
		var p reqParams
		if json.Unmarshal(m.Params, &p) == nil {
			req.params = &p
		}
	}
	req.modern = modernHeader(r) || (req.params != nil && req.params.Meta != nil && req.params.Meta.ProtocolVersion != nil)
	return req, nil
}

// modernHeader reports whether MCP-Protocol-Version is present and is not a
// 2025-era or 2024-11-05 version.
func modernHeader(r *http.Request) bool {
	v := r.Header.Get("Mcp-Protocol-Version")
	if v == "" {
		return false
	}
	switch v {
	case Version20241105, Version20250326, Version20250618, Version20251125:
		return false
	}
	return true
}

// rpcRefusal turns a decoding error into a 400 refusal.
func rpcRefusal(err error) *httpError {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return &httpError{status: http.StatusBadRequest, rpc: je}
	}
	return refusal(http.StatusBadRequest, jsonrpc.CodeParseError, "parse error")
}
