package httptransport

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/mcpmount/mcpmount/internal/jsonobj"
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
// decodes the rest. Member names match exactly, as JSON defines them and
// as the Go SDK reads them.
type reqParams struct {
	Meta *reqMeta
	Name json.RawMessage
	URI  json.RawMessage

	// args holds params.arguments undecoded: argumentAt walks it when a
	// header check needs it.
	args json.RawMessage

	// ambiguous names a member the headers are checked against that params
	// (or its _meta) holds more than once, repeated or in another case:
	// decoders differ on which one counts, so such a request is refused.
	ambiguous string
}

type reqMeta struct {
	ProtocolVersion    json.RawMessage
	ClientCapabilities json.RawMessage
}

// classify decodes a POST body and decides its era (spec 2026-07-28 basic/transports/streamable-http):
//
//   - a header naming a version that is not a 2025-era one, or params._meta
//     carrying io.modelcontextprotocol/protocolVersion: 2026-07-28 rules
//     (unknown versions get -32022 there, listing every version served);
//   - anything else (initialize, a session id, a 2025-era header, or
//     nothing at all): the 2025-era Streamable HTTP rules.
//
// Only the request itself is read; nothing is looked up. A batch of more
// than maxBatch messages is refused whole (Options.MaxBatchMessages).
func classify(r *http.Request, body []byte, maxBatch int) (*request, *httpError) {
	req := &request{}
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) > 0 && trimmed[0] == '[' {
		msgs, errs, _, err := jsonrpc.DecodeBatchMax(trimmed, maxBatch)
		if err != nil {
			return nil, rpcRefusal(err)
		}
		for i, m := range msgs {
			if errs[i] == nil {
				errs[i] = checkNotification(m)
			}
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
	if err == nil {
		err = checkNotification(m)
	}
	req.one[0], req.oneErr[0] = m, err
	req.msgs, req.errs = req.one[:], req.oneErr[:]
	if err == nil && m.Method != "" && len(m.Params) > 0 {
		req.params = decodeParams(m.Params)
	}
	req.modern = modernHeader(r) || (req.params != nil && req.params.Meta != nil && req.params.Meta.ProtocolVersion != nil)
	return req, nil
}

// errRequestAsNotification refuses a message that names a request's method
// but carries no id. Every MCP notification's method starts with
// "notifications/" (https://modelcontextprotocol.io/specification/2025-11-25/basic#notifications
// and the schema's ClientNotification), so anything else sent without an
// id is a request that no one could answer: JSON-RPC 2.0 (section 4.1)
// forbids a response to a notification, and an engine handed one (go-sdk's
// initialize handshake, say) may wait forever for an answer it will never
// send. Our choice, in every era: 400 with -32600 and no id, at once
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#sending-messages-to-the-server
// lets a server refuse a notification it cannot accept with an HTTP error
// status and a JSON-RPC error without an id).
var errRequestAsNotification = jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "a request needs an id: only notifications/* methods may be sent without one")

// checkNotification returns errRequestAsNotification for a message sent
// without an id whose method is not a notification's, else nil.
func checkNotification(m *jsonrpc.Message) error {
	if m.IsNotification() && !strings.HasPrefix(m.Method, "notifications/") {
		return errRequestAsNotification
	}
	return nil
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

// decodeParams decodes params, returning nil if it is not an object, or
// if _meta or arguments is present, not null and not an object. Plain
// objects are walked without reflection; anything else (null or mistyped
// members, escaped, case-folded or repeated keys) goes to decodeParamsSlow.
func decodeParams(params json.RawMessage) *reqParams {
	if p, ok := decodeParamsFast(params); ok {
		return p
	}
	return decodeParamsSlow(params)
}

// decodeParamsSlow is decodeParams for any valid JSON, through
// encoding/json's tokenizer, which unescapes keys.
func decodeParamsSlow(params json.RawMessage) *reqParams {
	top, ambiguous, ok := members(params, keyMeta, keyName, keyURI, keyArguments)
	if !ok {
		return nil
	}
	p := &reqParams{Name: top[1], URI: top[2], ambiguous: ambiguous}
	if args := top[3]; args != nil && string(args) != "null" {
		if args[0] != '{' {
			return nil
		}
		p.args = args
	}
	if raw := top[0]; raw != nil && string(raw) != "null" {
		meta, ambiguous, ok := members(raw, keyProtocol, keyCapabilities)
		if !ok {
			return nil
		}
		p.Meta = &reqMeta{ProtocolVersion: meta[0], ClientCapabilities: meta[1]}
		if p.ambiguous == "" {
			p.ambiguous = ambiguous
		}
	}
	return p
}

// members returns the values of the named members of the JSON object obj
// (nil where absent; the last where repeated), and the first of the names
// that obj holds more than once, repeated or in another case. ok is false
// if obj is not an object.
func members(obj []byte, names ...string) (values []json.RawMessage, ambiguous string, ok bool) {
	values = make([]json.RawMessage, len(names))
	ok = jsonobj.Members(obj, func(key string, v json.RawMessage) {
		for i, name := range names {
			switch {
			case key == name:
				if values[i] != nil && ambiguous == "" {
					ambiguous = name
				}
				values[i] = v
			case ambiguous == "" && strings.EqualFold(key, name):
				ambiguous = name
			}
		}
	})
	if !ok {
		return nil, "", false
	}
	return values, ambiguous, true
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
			p.args = value[:len(value):len(value)]
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

// errNotString is jsonString's error for anything but a JSON string.
var errNotString = errors.New("not a JSON string")

// jsonString decodes a JSON string, as json.Unmarshal into a string would,
// except that null is an error too.
func jsonString(raw json.RawMessage) (string, error) {
	if s, ok := jsonscan.SimpleString(raw); ok {
		if string(s) == Version20260728 {
			return Version20260728, nil
		}
		return string(s), nil
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", errNotString
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
