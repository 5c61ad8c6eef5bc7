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

// StartCall implements httptransport.Observer: it starts the call's
// SERVER span, named "{mcp.method.name} {target}", and returns the
// context that carries it, and what ends it and records the call's
// duration.
func (o *Observer) StartCall(ctx context.Context, call *httptransport.CallInfo) (context.Context, func(httptransport.CallOutcome)) {
	start := time.Now()
	p := parseParams(call.Params)
	name := call.Method
	if t := target(call.Method, &p); t != "" {
		name += " " + t
	}

	// Attributes shared by the span and the duration histogram; the
	// method goes first, as Record adds it itself.
	common := make([]attribute.KeyValue, 0, 8)
	common = append(common, keyMethod.String(call.Method))
	switch call.Method {
	case "tools/call":
		common = append(common, keyToolName.String(p.Name), semconv.GenAIOperationNameExecuteTool)
	case "prompts/get":
		common = append(common, keyPromptName.String(p.Name))
	}
	if call.Version != "" {
		common = append(common, keyMCPVersion.String(call.Version))
	}
	common = networkAttrs(common, call.Proto)
	spanAttrs := append(spanOnlyAttrs(call, &p), common...)

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
	methodAttr := metric.WithAttributes(keyMethod.String(call.Method))
	o.callsActive.Add(ctx, 1, methodAttr)

	return ctx, func(out httptransport.CallOutcome) {
		o.callsActive.Add(ctx, -1, methodAttr)
		metricAttrs := common[:len(common):len(common)]
		var errType string
		switch {
		case out.Cancelled:
			errType = "cancelled"
		case out.Response != nil && out.Response.Error != nil:
			code := strconv.FormatInt(out.Response.Error.Code, 10)
			errType = code
			span.SetAttributes(keyRPCStatus.String(code))
			metricAttrs = append(metricAttrs, keyRPCStatus.String(code))
			span.SetStatus(codes.Error, out.Response.Error.Message)
		case out.Response != nil && call.Method == "tools/call" && isToolError(out.Response.Result):
			errType = errorTypeTool
			span.SetStatus(codes.Error, "tool returned isError")
		}
		if errType != "" {
			span.SetAttributes(keyErrorType.String(errType))
			metricAttrs = append(metricAttrs, keyErrorType.String(errType))
		}
		if out.Status != 0 {
			span.SetAttributes(keyHTTPStatus.Int(out.Status))
		}
		span.End()
		o.opDuration.Record(ctx, time.Since(start).Seconds(), mcpconv.MethodNameAttr(call.Method), metricAttrs[1:]...)
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
