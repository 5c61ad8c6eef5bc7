package otelmcp

import (
	"bytes"
	"encoding/json"
	"net"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/jsonscan"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Attribute keys of the conventions that semconv v1.41.0 names, and the
// ones of this package's own metrics (prefixed mcpmount.).
var (
	keyStreamKind   = attribute.Key("mcpmount.stream.kind")
	keyReason       = attribute.Key("mcpmount.reason")
	keyTransport    = attribute.Key("mcpmount.transport")
	keyHTTPStatus   = semconv.HTTPResponseStatusCodeKey
	keyErrorType    = semconv.ErrorTypeKey
	keyRPCStatus    = semconv.RPCResponseStatusCodeKey
	keyToolName     = semconv.GenAIToolNameKey
	keyPromptName   = semconv.GenAIPromptNameKey
	keyOperation    = semconv.GenAIOperationNameKey
	keyMethod       = semconv.McpMethodNameKey
	keyMCPVersion   = semconv.McpProtocolVersionKey
	keySession      = semconv.McpSessionIDKey
	keyResourceURI  = semconv.McpResourceURIKey
	keyRequestID    = semconv.JSONRPCRequestIDKey
	keyJSONRPCVer   = semconv.JSONRPCProtocolVersionKey
	keyNetTransport = semconv.NetworkTransportKey
	keyNetProto     = semconv.NetworkProtocolNameKey
	keyNetProtoVer  = semconv.NetworkProtocolVersionKey
	keyClientAddr   = semconv.ClientAddressKey
	keyClientPort   = semconv.ClientPortKey
)

// errorTypeTool is error.type for a tool result with isError set, as the
// conventions name it.
const errorTypeTool = "tool_error"

// callParams is what the observer reads of a request's params: the
// tool's or prompt's name, the resource's URI, and the W3C trace context
// and baggage of _meta.
type callParams struct {
	Name string `json:"name"`
	URI  string `json:"uri"`
	Meta struct {
		Traceparent string `json:"traceparent"`
		Tracestate  string `json:"tracestate"`
		Baggage     string `json:"baggage"`
	} `json:"_meta"`
}

// parseParams reads name, uri and _meta from params; what it cannot read
// stays empty. Plain JSON (no escapes) is walked without reflection;
// anything else goes to encoding/json.
func parseParams(params json.RawMessage) callParams {
	var p callParams
	if len(params) == 0 {
		return p
	}
	if parseParamsFast(params, &p) {
		return p
	}
	p = callParams{}
	_ = json.Unmarshal(params, &p)
	return p
}

// parseParamsFast is parseParams for plain JSON; it reports false when
// encoding/json must decide.
func parseParamsFast(params []byte, p *callParams) bool {
	str := func(raw []byte, dst *string) bool {
		if len(raw) == 0 || raw[0] != '"' {
			return true // not a string: left empty, as encoding/json would fail it
		}
		s, ok := jsonscan.SimpleString(raw)
		*dst = string(s)
		return ok
	}
	return jsonscan.Object(params, func(key, value []byte) bool {
		switch string(key) {
		case "name":
			return str(value, &p.Name)
		case "uri":
			return str(value, &p.URI)
		case "_meta":
			if len(value) == 0 || value[0] != '{' {
				return true
			}
			return jsonscan.Object(value, func(key, value []byte) bool {
				switch string(key) {
				case "traceparent":
					return str(value, &p.Meta.Traceparent)
				case "tracestate":
					return str(value, &p.Meta.Tracestate)
				case "baggage":
					return str(value, &p.Meta.Baggage)
				}
				return !foldsTo(key)
			})
		}
		return !foldsTo(key)
	})
}

// foldsTo reports whether key matches, in another case, one of the names
// parseParams reads, as encoding/json would match it.
func foldsTo(key []byte) bool {
	for _, name := range readNames {
		if jsonscan.FoldEqual(key, name) {
			return true
		}
	}
	return false
}

var readNames = []string{"name", "uri", "_meta", "traceparent", "tracestate", "baggage"}

// requestID is the id as the conventions record it: a string id without
// its quotes, a number as written; "" for none or null.
func requestID(id jsonrpc.ID) string {
	raw := id.Raw()
	if raw == "" || raw == "null" {
		return ""
	}
	if raw[0] == '"' {
		if s, err := strconv.Unquote(raw); err == nil {
			return s
		}
	}
	return raw
}

// protoVersion turns "HTTP/1.1" into "1.1" and "HTTP/2.0" into "2".
func protoVersion(proto string) string {
	v, ok := strings.CutPrefix(proto, "HTTP/")
	if !ok {
		return ""
	}
	return strings.TrimSuffix(v, ".0")
}

// networkAttrs appends the attributes of the connection: transport,
// protocol and, unless "", its version (see protoVersion).
func networkAttrs(attrs []attribute.KeyValue, version string) []attribute.KeyValue {
	attrs = append(attrs, keyNetTransport.String("tcp"), keyNetProto.String("http"))
	if version != "" {
		attrs = append(attrs, keyNetProtoVer.String(version))
	}
	return attrs
}

// clientAttrs appends the client's address and port, from the
// connection's peer address.
func clientAttrs(attrs []attribute.KeyValue, remote string) []attribute.KeyValue {
	if remote == "" {
		return attrs
	}
	host, port, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	attrs = append(attrs, keyClientAddr.String(host))
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, keyClientPort.Int(n))
	}
	return attrs
}

// isToolError reports whether a tools/call result has isError set.
func isToolError(result json.RawMessage) bool {
	if !bytes.Contains(result, []byte(`"isError"`)) {
		return false
	}
	var r struct {
		IsError bool `json:"isError"`
	}
	return json.Unmarshal(result, &r) == nil && r.IsError
}

// transportName is the mcpmount.transport value of a transport.
func transportName(t httptransport.Transport) string { return string(t) }
