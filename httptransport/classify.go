package httptransport

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/mcpmount/mcpmount/internal/jsonscan"
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

	one    [1]*jsonrpc.Message // msgs and errs of a single message
	oneErr [1]error
}

// reqParams is the part of params the transport validates; the engine
// decodes the rest.
type reqParams struct {
	Meta      *reqMeta                   `json:"_meta"`
	Name      json.RawMessage            `json:"name"`
	URI       json.RawMessage            `json:"uri"`
	Arguments map[string]json.RawMessage `json:"arguments"`

	// argsRaw holds arguments undecoded when decodeParams took its fast
	// path; arguments decodes them when a header check needs them.
	argsRaw json.RawMessage
}

// arguments returns params.arguments as a map.
func (p *reqParams) arguments() map[string]json.RawMessage {
	if p.Arguments == nil && p.argsRaw != nil {
		_ = json.Unmarshal(p.argsRaw, &p.Arguments)
		p.argsRaw = nil
	}
	return p.Arguments
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
	req.one[0], req.oneErr[0] = m, err
	req.msgs, req.errs = req.one[:], req.oneErr[:]
	if err == nil && m.Method != "" && len(m.Params) > 0 {
		req.params = decodeParams(m.Params)
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

// Keys of params and of params._meta that decodeParams reads.
const (
	keyMeta         = "_meta"
	keyName         = "name"
	keyURI          = "uri"
	keyArguments    = "arguments"
	keyProtocol     = "io.modelcontextprotocol/protocolVersion"
	keyCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// decodeParams decodes params as json.Unmarshal into reqParams would,
// returning nil where that fails. Plain objects are walked without
// reflection; anything else (null or mistyped members, escaped,
// case-folded or repeated keys) goes to encoding/json.
func decodeParams(params json.RawMessage) *reqParams {
	if p, ok := decodeParamsFast(params); ok {
		return p
	}
	var p reqParams
	if json.Unmarshal(params, &p) != nil {
		return nil
	}
	return &p
}

func decodeParamsFast(params json.RawMessage) (*reqParams, bool) {
	p := new(reqParams)
	var seen [4]bool
	once := func(i int) bool {
		if seen[i] {
			return false
		}
		seen[i] = true
		return true
	}
	ok := jsonscan.Object(params, func(key, value []byte) bool {
		switch string(key) {
		case keyMeta:
			if !once(0) || value[0] != '{' {
				return false
			}
			meta, ok := decodeMetaFast(value)
			p.Meta = meta
			return ok
		case keyName:
			p.Name = value[:len(value):len(value)]
			return once(1) && value[0] != 'n'
		case keyURI:
			p.URI = value[:len(value):len(value)]
			return once(2) && value[0] != 'n'
		case keyArguments:
			p.argsRaw = value[:len(value):len(value)]
			return once(3) && value[0] == '{'
		}
		return !jsonscan.FoldEqual(key, keyMeta) && !jsonscan.FoldEqual(key, keyName) &&
			!jsonscan.FoldEqual(key, keyURI) && !jsonscan.FoldEqual(key, keyArguments)
	})
	return p, ok
}

func decodeMetaFast(raw []byte) (*reqMeta, bool) {
	meta := new(reqMeta)
	ok := jsonscan.Object(raw, func(key, value []byte) bool {
		switch string(key) {
		case keyProtocol:
			if meta.ProtocolVersion != nil || value[0] == 'n' {
				return false
			}
			meta.ProtocolVersion = value[:len(value):len(value)]
			return true
		case keyCapabilities:
			if meta.ClientCapabilities != nil || value[0] == 'n' {
				return false
			}
			meta.ClientCapabilities = value[:len(value):len(value)]
			return true
		}
		return !jsonscan.FoldEqual(key, keyProtocol) && !jsonscan.FoldEqual(key, keyCapabilities)
	})
	return meta, ok
}

// jsonString decodes a JSON string, as json.Unmarshal into a string would.
func jsonString(raw json.RawMessage) (string, error) {
	if s, ok := jsonscan.SimpleString(raw); ok {
		if string(s) == Version20260728 {
			return Version20260728, nil
		}
		return string(s), nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
