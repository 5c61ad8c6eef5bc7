package otelmcp

import (
	"go.opentelemetry.io/otel/attribute"

	"github.com/mcpmount/mcpmount/httptransport"
)

// startAttrs are the attributes a call's span starts with, those a
// sampler can see: the method, the tool or prompt, the protocol version,
// the JSON-RPC version and id, the resource's URI and the session.
func startAttrs(call *httptransport.CallInfo, p *callParams, s callShape) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, keyJSONRPCVer.String("2.0"), keyMethod.String(call.Method))
	if s.targetKey != "" {
		attrs = append(attrs, s.targetKey.String(s.target))
	}
	attrs = s.appendOperation(attrs)
	if id := requestID(call.ID); id != "" {
		attrs = append(attrs, keyRequestID.String(id))
	}
	if p.URI != "" && (call.Method == "resources/read" || call.Method == "resources/subscribe" || call.Method == "resources/unsubscribe") {
		attrs = append(attrs, keyResourceURI.String(p.URI))
	}
	if call.SessionID != "" {
		attrs = append(attrs, keySession.String(call.SessionID))
	}
	return attrs
}

// endAttrs are the attributes a call's span gets as it ends, in one
// slice: the connection's (network.*, client.*; see docs/observability.md,
// "Cost", for why they wait), the JSON-RPC error code, error.type and the
// HTTP status.
func endAttrs(k *seriesKey, remote string, status int) []attribute.KeyValue {
	n := 5 // network.transport, .protocol.name, .protocol.version, client.address, client.port
	if k.rpcError {
		n++
	}
	if k.errType != "" {
		n++
	}
	if status != 0 {
		n++
	}
	attrs := make([]attribute.KeyValue, 0, n)
	attrs = networkAttrs(attrs, k.proto)
	attrs = clientAttrs(attrs, remote)
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
