package otelmcp

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// seriesKey names a series of mcp.server.operation.duration: the call's
// shape and how it ended.
type seriesKey struct {
	callShape
	errType  string // error.type, "" for none
	rpcError bool   // errType is a JSON-RPC error code, also rpc.response.status_code
}

// options returns the record options of the series: its attribute set,
// sorted and hashed once for all the calls of a series the memo keeps.
func (k *seriesKey) options() []metric.RecordOption {
	attrs := k.appendOperation(make([]attribute.KeyValue, 0, 9))
	attrs = networkAttrs(attrs, k.proto)
	if k.rpcError {
		attrs = append(attrs, keyRPCStatus.String(k.errType))
	}
	if k.errType != "" {
		attrs = append(attrs, keyErrorType.String(k.errType))
	}
	if k.targetKey != "" {
		attrs = append(attrs, k.targetKey.String(k.target))
	}
	attrs = append(attrs, keyMethod.String(k.method))
	return []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attrs...))}
}

// seriesOptions returns the record options of k's series, kept in
// o.series while it has room, made anew past it.
func (o *Observer) seriesOptions(k *seriesKey) []metric.RecordOption {
	if opts, ok := o.series.load(*k); ok {
		return opts
	}
	opts := k.options()
	o.series.store(*k, opts)
	return opts
}
