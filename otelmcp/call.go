package otelmcp

import (
	"context"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// metaCarrier reads the W3C trace context and baggage of params._meta.
type metaCarrier struct{ traceparent, tracestate, baggage string }

// Get returns the value of key, one of the three _meta keys the observer
// reads; "" for any other.
func (c *metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.traceparent
	case "tracestate":
		return c.tracestate
	case "baggage":
		return c.baggage
	}
	return ""
}

// Set does nothing: the carrier is only read.
func (c *metaCarrier) Set(string, string) {}

// Keys returns the keys Get reads.
func (c *metaCarrier) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }

var _ propagation.TextMapCarrier = (*metaCarrier)(nil)

// knownMethods are the request methods of the MCP specification (every
// era). Others, which any client can make up, are named "_OTHER" in span
// names and metrics, as the HTTP conventions name unknown methods, so that
// their cardinality stays bounded; the span's mcp.method.name keeps the
// method as sent.
var knownMethods = map[string]bool{
	"initialize": true, "ping": true, "server/discover": true, "subscriptions/listen": true,
	"tools/list": true, "tools/call": true, "prompts/list": true, "prompts/get": true,
	"resources/list": true, "resources/templates/list": true, "resources/read": true,
	"resources/subscribe": true, "resources/unsubscribe": true,
	"logging/setLevel": true, "completion/complete": true,
	"tasks/get": true, "tasks/result": true, "tasks/list": true, "tasks/cancel": true,
}

// otherMethod names an unknown method in span names and metrics.
const otherMethod = "_OTHER"

// serverKind is the kind of a call's span.
var serverKind = trace.WithSpanKind(trace.SpanKindServer)

// StartCall implements httptransport.Observer: it starts the call's
// SERVER span, named "{mcp.method.name} {target}", and returns the
// context that carries it, and what ends it and records the call's
// duration.
func (o *Observer) StartCall(ctx context.Context, call *httptransport.CallInfo) (context.Context, func(httptransport.CallOutcome)) {
	start := time.Now()
	p := parseParams(call.Params)
	shape := shapeOf(call, &p)
	name, named := o.names.load(nameKey{shape.method, shape.target})
	if !named {
		name = shape.spanName()
	}
	opts := []trace.SpanStartOption{serverKind, trace.WithAttributes(startAttrs(call, &p, shape)...)}
	parent := ctx
	if p.Meta.Traceparent != "" {
		carrier := &metaCarrier{p.Meta.Traceparent, p.Meta.Tracestate, p.Meta.Baggage}
		if remote := o.propagator.Extract(ctx, carrier); trace.SpanContextFromContext(remote).IsValid() {
			// The client's context is the parent; the HTTP request's span
			// (otelhttp), if any, a link (MCP conventions, "Context
			// propagation").
			if http := trace.SpanContextFromContext(ctx); http.IsValid() {
				opts = append(opts, trace.WithLinks(trace.Link{SpanContext: http}))
			}
			parent = remote
		}
	}
	ctx, span := o.tracer.Start(parent, name, opts...)
	o.inFlight[shape.method].start()
	remote := call.RemoteAddr
	return ctx, func(out httptransport.CallOutcome) { o.endCall(ctx, span, name, shape, remote, start, out) }
}

// endCall ends the span of a call of shape s, named name, from the client
// at remote, and records its duration since start.
func (o *Observer) endCall(ctx context.Context, span trace.Span, name string, s callShape, remote string, start time.Time, out httptransport.CallOutcome) {
	o.inFlight[s.method].end()
	k := seriesKey{callShape: s}
	switch {
	case out.Cancelled:
		k.errType = "cancelled"
		if k.target != "" && !o.names.has(nameKey{s.method, s.target}) {
			// Unanswered, the name may be the client's invention (a client
			// dropping each request at once could make a series per name):
			// only a name an answer proved names a metric.
			k.targetKey, k.target = "", ""
		}
	case out.Response != nil && out.Response.Error != nil:
		code := out.Response.Error.Code
		k.errType, k.rpcError = strconv.FormatInt(code, 10), true
		span.SetStatus(codes.Error, out.Response.Error.Message)
		if code == jsonrpc.CodeMethodNotFound || code == jsonrpc.CodeInvalidParams {
			// No such tool or prompt, perhaps: a name the client made up
			// names neither the span nor a metric.
			k.targetKey, k.target = "", ""
			span.SetName(s.method)
		}
	case out.Response != nil && s.targetKey == keyToolName && isToolError(out.Response.Result):
		k.errType = errorTypeTool
		span.SetStatus(codes.Error, "tool returned isError")
	}
	if span.IsRecording() {
		// A span the sampler dropped keeps nothing: its end attributes
		// are not made (most of a call's spans, where a service samples a
		// share of its traces).
		span.SetAttributes(endAttrs(&k, remote, out.Status)...)
	}
	span.End()
	if k.target != "" && !out.Cancelled {
		// The engine answered without -32601 or -32602: the name is no
		// client's invention, so keep it (StartCall does not, for it could
		// be).
		if key := (nameKey{s.method, s.target}); !o.names.has(key) {
			o.names.store(key, name)
		}
	}
	o.opDuration.Inst().Record(ctx, time.Since(start).Seconds(), o.seriesOptions(&k)...)
}
