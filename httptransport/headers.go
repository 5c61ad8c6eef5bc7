package httptransport

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// checkStandardHeaders enforces the 2026-07-28 standard request headers
// against the body (spec 2026-07-28 basic/transports/streamable-http, "Server Validation"); every failure is
// -32020 HeaderMismatch.
//
//   - Mcp-Method must equal the method, compared case-sensitively.
//   - Mcp-Name must equal params.name (tools/call, prompts/get) or
//     params.uri (resources/read). Other methods' Mcp-Name is not read.
//   - Mcp-Param-X must mirror each tools/call argument annotated with
//     x-mcp-header X whose value is not null, and be absent otherwise.
//   - Values hold only visible ASCII, space and tab; "=?base64?...?="
//     values are decoded before comparing; numbers compare as numbers.
//   - A header that must appear once and appears twice is a mismatch.
func checkStandardHeaders(header http.Header, m *jsonrpc.Message, p *reqParams, desc *Description) *jsonrpc.Error {
	for name, values := range header {
		if !strings.HasPrefix(name, "Mcp-") {
			continue
		}
		for _, v := range values {
			if !validHeaderValue(v) {
				return headerMismatch(name + " header holds characters outside visible ASCII")
			}
		}
	}
	method, err := single(header, "Mcp-Method")
	if err != nil {
		return err
	}
	if method != m.Method {
		return headerMismatch("Mcp-Method header differs from the body's method")
	}
	var field json.RawMessage
	switch m.Method {
	case "tools/call", "prompts/get":
		field = paramField(p, func(p *reqParams) json.RawMessage { return p.Name })
	case "resources/read":
		field = paramField(p, func(p *reqParams) json.RawMessage { return p.URI })
	default:
		return nil
	}
	name, err := single(header, "Mcp-Name")
	if err != nil {
		return err
	}
	decoded, ok := decodeHeaderValue(name)
	if !ok {
		return headerMismatch("Mcp-Name header has malformed base64")
	}
	want, jerr := jsonString(field)
	if jerr != nil || decoded != want {
		return headerMismatch("Mcp-Name header differs from the body")
	}
	if m.Method != "tools/call" || desc == nil {
		return nil
	}
	for _, hp := range desc.ToolHeaders[want] {
		if err := checkParamHeader(header, p, hp); err != nil {
			return err
		}
	}
	return nil
}

func paramField(p *reqParams, get func(*reqParams) json.RawMessage) json.RawMessage {
	if p == nil {
		return nil
	}
	return get(p)
}

// checkParamHeader checks one Mcp-Param-X header against its argument.
func checkParamHeader(header http.Header, p *reqParams, hp HeaderParam) *jsonrpc.Error {
	name := "Mcp-Param-" + hp.Header
	values := header.Values(name)
	value, ambiguous := argumentAt(p, hp.Path)
	if ambiguous {
		return headerMismatch(name + " header: the arguments hold its property more than once (repeated, or in another case)")
	}
	if value == nil {
		if len(values) > 0 {
			return headerMismatch(name + " header present but the argument is absent or null")
		}
		return nil
	}
	if len(values) != 1 {
		return headerMismatch(name + " header must appear once, mirroring the argument")
	}
	decoded, ok := decodeHeaderValue(values[0])
	if !ok {
		return headerMismatch(name + " header has malformed base64")
	}
	if !sameValue(decoded, value) {
		return headerMismatch(name + " header differs from the argument")
	}
	return nil
}

// argumentAt returns the raw JSON at path inside params.arguments, or nil
// when it is absent or null. ambiguous is set when an object on the path
// holds the key more than once, repeated or in another case.
func argumentAt(p *reqParams, path []string) (raw json.RawMessage, ambiguous bool) {
	if p == nil || len(path) == 0 {
		return nil, false
	}
	raw = p.args
	for _, key := range path {
		if len(raw) == 0 || raw[0] != '{' {
			return nil, false
		}
		vals, amb, ok := members(raw, key)
		if !ok {
			return nil, false
		}
		if amb != "" {
			return nil, true
		}
		raw = vals[0]
	}
	if raw == nil || string(raw) == "null" {
		return nil, false
	}
	return raw, false
}

// sameValue compares a decoded header value with a JSON argument: strings
// exactly, booleans as true/false, numbers by value, exactly (42 equals
// 42.0, not 42.0000000000000001), within ±(2^53−1), the integers a header
// may carry (spec 2026-07-28 basic/transports/streamable-http). A numeric header is a JSON number too: no hex,
// no fraction "a/b", no leading zeros.
func sameValue(header string, arg json.RawMessage) bool {
	switch c := arg[0]; {
	case c == '"':
		var s string
		return json.Unmarshal(arg, &s) == nil && s == header
	case c == 't' || c == 'f':
		return header == string(arg)
	case c == '-' || (c >= '0' && c <= '9'):
		if header == "" || !(header[0] == '-' || (header[0] >= '0' && header[0] <= '9')) || !json.Valid([]byte(header)) {
			return false
		}
		a, okA := new(big.Rat).SetString(string(arg))
		b, okB := new(big.Rat).SetString(header)
		return okA && okB && a.Cmp(b) == 0 && new(big.Rat).Abs(a).Cmp(maxSafeInteger) <= 0
	}
	return false
}

// maxSafeInteger is 2^53−1, the largest integer a header may carry
// (spec 2026-07-28 basic/transports/streamable-http): beyond it, float64 no longer tells integers apart.
var maxSafeInteger = new(big.Rat).SetInt64(1<<53 - 1)

// decodeHeaderValue decodes the "=?base64?...?=" form (prefix and suffix
// lowercase, exactly); any other value is literal.
func decodeHeaderValue(v string) (string, bool) {
	const prefix, suffix = "=?base64?", "?="
	if len(v) < len(prefix)+len(suffix) || !strings.HasPrefix(v, prefix) || !strings.HasSuffix(v, suffix) {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(v[len(prefix) : len(v)-len(suffix)])
	if err != nil {
		return "", false
	}
	return string(b), true
}

// validHeaderValue reports whether v holds only visible ASCII, space and tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x21 || c > 0x7e) && c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// single returns the one value of a required header.
func single(header http.Header, name string) (string, *jsonrpc.Error) {
	values := header.Values(name)
	switch len(values) {
	case 0:
		return "", headerMismatch(name + " header is required")
	case 1:
		return values[0], nil
	}
	return "", headerMismatch(name + " header must appear once")
}

func headerMismatch(msg string) *jsonrpc.Error {
	return jsonrpc.Errorf(jsonrpc.CodeHeaderMismatch, msg)
}
