package otelmcp

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpmount/mcpmount/httptransport"
)

// startAttrs are the attributes a call's span starts with, those a
// sampler can see: the method, the tool or prompt, the protocol version,
// the connection's, the JSON-RPC version and id, the resource's URI, the
// session and the client's address and port.
func startAttrs(call *httptransport.CallInfo, p *callParams, s callShape) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 13)
	attrs = append(attrs, keyJSONRPCVer.String("2.0"), keyMethod.String(call.Method))
	if s.targetKey != "" {
		attrs = append(attrs, s.targetKey.String(s.target))
	}
	attrs = s.appendOperation(attrs)
	attrs = networkAttrs(attrs, s.proto)
	if id := requestID(call.ID); id != "" {
		attrs = append(attrs, keyRequestID.String(id))
	}
	if p.URI != "" && (call.Method == "resources/read" || call.Method == "resources/subscribe" || call.Method == "resources/unsubscribe") {
		attrs = append(attrs, keyResourceURI.String(p.URI))
	}
	if call.SessionID != "" {
		attrs = append(attrs, keySession.String(call.SessionID))
	}
	return clientAttrs(attrs, call.RemoteAddr)
}

// endAttrs are the attributes a call's span gets as it ends, in one
// slice: the JSON-RPC error code, error.type and the HTTP status.
func endAttrs(k *seriesKey, status int) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 3)
	if k.rpcError {
		attrs = append(attrs, keyRPCStatus.String(k.errType))
	}
	if k.errType != "" {
		attrs = append(attrs, keyErrorType.String(k.errType))
	}
	if status != 0 {
		attrs = append(attrs, keyHTTPStatus.Int(status))
	}
	return attrs
}
