package otelmcp

import (
	"context"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// metaCarrier reads the W3C trace context and baggage from params._meta.
type metaCarrier struct{ p *callParams }

func (c metaCarrier) Get(key string) string {
	switch key {
	case "traceparent":
		return c.p.Meta.Traceparent
	case "tracestate":
		return c.p.Meta.Tracestate
	case "baggage":
		return c.p.Meta.Baggage
	}
	return ""
}

func (c metaCarrier) Set(string, string) {}

func (c metaCarrier) Keys() []string { return []string{"traceparent", "tracestate", "baggage"} }

var _ propagation.TextMapCarrier = metaCarrier{}

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

// StartCall implements httptransport.Observer: it starts the call's
// SERVER span, named "{mcp.method.name} {target}", and returns the
// context that carries it, and what ends it and records the call's
// duration.
func (o *Observer) StartCall(ctx context.Context, call *httptransport.CallInfo) (context.Context, func(httptransport.CallOutcome)) {
	start := time.Now()
	p := parseParams(call.Params)
	method := call.Method
	if !knownMethods[method] {
		method = otherMethod
	}
	name := method
	if t := target(call.Method, &p); t != "" {
		name += " " + t
	}

	// Attributes shared by the span and the duration histogram.
	common := make([]attribute.KeyValue, 0, 8)
	var targetAttr attribute.KeyValue // the tool's or prompt's name
	switch call.Method {
	case "tools/call":
		targetAttr = keyToolName.String(p.Name)
		common = append(common, semconv.GenAIOperationNameExecuteTool)
	case "prompts/get":
		targetAttr = keyPromptName.String(p.Name)
	}
	if call.Version != "" {
		common = append(common, keyMCPVersion.String(call.Version))
	}
	common = networkAttrs(common, call.Proto)
	spanAttrs := append(spanOnlyAttrs(call, &p), common...)
	spanAttrs = append(spanAttrs, keyMethod.String(call.Method))
	if targetAttr.Valid() {
		spanAttrs = append(spanAttrs, targetAttr)
	}

	opts := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(spanAttrs...)}
	parent := ctx
	if p.Meta.Traceparent != "" {
		if remote := o.propagator.Extract(ctx, metaCarrier{&p}); trace.SpanContextFromContext(remote).IsValid() {
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
	methodAttr := metric.WithAttributes(keyMethod.String(method))
	o.callsActive.Add(ctx, 1, methodAttr)

	return ctx, func(out httptransport.CallOutcome) {
		o.callsActive.Add(ctx, -1, methodAttr)
		metricAttrs := common
		var errType string
		switch {
		case out.Cancelled:
			errType = "cancelled"
		case out.Response != nil && out.Response.Error != nil:
			code := out.Response.Error.Code
			errType = strconv.FormatInt(code, 10)
			span.SetAttributes(keyRPCStatus.String(errType))
			metricAttrs = append(metricAttrs, keyRPCStatus.String(errType))
			span.SetStatus(codes.Error, out.Response.Error.Message)
			if code == jsonrpc.CodeMethodNotFound || code == jsonrpc.CodeInvalidParams {
				// No such tool or prompt, perhaps: a name the client made
				// up names neither the span nor a metric.
				targetAttr = attribute.KeyValue{}
				span.SetName(method)
			}
		case out.Response != nil && call.Method == "tools/call" && isToolError(out.Response.Result):
			errType = errorTypeTool
			span.SetStatus(codes.Error, "tool returned isError")
		}
		if errType != "" {
			span.SetAttributes(keyErrorType.String(errType))
			metricAttrs = append(metricAttrs, keyErrorType.String(errType))
		}
		if targetAttr.Valid() {
			metricAttrs = append(metricAttrs, targetAttr)
		}
		if out.Status != 0 {
			span.SetAttributes(keyHTTPStatus.Int(out.Status))
		}
		span.End()
		o.opDuration.Record(ctx, time.Since(start).Seconds(), mcpconv.MethodNameAttr(method), metricAttrs...)
	}
}

// spanOnlyAttrs are the attributes of the span that the histogram does
// not take (high cardinality): the JSON-RPC version and id, the
// resource's URI, the session and the client's address and port.
func spanOnlyAttrs(call *httptransport.CallInfo, p *callParams) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 16)
	attrs = append(attrs, keyJSONRPCVer.String("2.0"))
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
