// Package otelmcp observes an mcpmount endpoint with OpenTelemetry: a
// SERVER span and the mcp.server.operation.duration histogram for every
// MCP request, the mcp.server.session.duration histogram for every
// session, per the OpenTelemetry semantic conventions for MCP
// (https://opentelemetry.io/docs/specs/semconv/gen-ai/mcp/), and the
// transport's own counts: calls in flight, open sessions, held streams,
// refusals, dropped messages, evicted events and relay failures.
//
// It implements httptransport.Observer; set it in Options.Observer:
//
//	obs, err := otelmcp.New(nil) // the global TracerProvider, MeterProvider and propagator
//	h := httptransport.New(engine, &httptransport.Options{Observer: obs})
//
// A span's parent is the trace context the client put in the request's
// params._meta (traceparent, tracestate, baggage), with the HTTP server
// span (otelhttp's, say) as a link; without one, the HTTP server span, or
// none. The span is in the context the engine serves the call with, so
// the spans a tool handler starts from its context are its children.
//
// It lives in a module of its own so that the transport's module takes no
// OpenTelemetry dependency.
package otelmcp
