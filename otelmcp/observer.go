package otelmcp

import (
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpmount/mcpmount/httptransport"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/mcpmount/mcpmount/otelmcp"

// DurationBuckets are the explicit bucket boundaries, in seconds, that the
// MCP conventions give mcp.server.operation.duration and
// mcp.server.session.duration.
var DurationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// Options configures an Observer. A nil *Options, and the zero value of
// every field, selects the documented default.
type Options struct {
	// TracerProvider makes the spans. Nil means otel.GetTracerProvider().
	TracerProvider trace.TracerProvider
	// MeterProvider makes the metrics. Nil means otel.GetMeterProvider().
	MeterProvider metric.MeterProvider
	// Propagator reads the trace context a request carries in
	// params._meta, under the keys traceparent, tracestate and baggage
	// (the only ones the observer reads). Nil means
	// otel.GetTextMapPropagator(); if that propagates nothing (no fields,
	// the global default), W3C Trace Context and Baggage.
	Propagator propagation.TextMapPropagator
}

// Observer implements httptransport.Observer with OpenTelemetry. Make it
// with New; it is safe for concurrent use.
type Observer struct {
	tracer     trace.Tracer
	propagator propagation.TextMapPropagator

	opDuration      mcpconv.ServerOperationDuration
	sessionDuration mcpconv.ServerSessionDuration
	sessionsActive  metric.Int64UpDownCounter
	streamsActive   metric.Int64UpDownCounter
	refusals        metric.Int64Counter
	dropped         metric.Int64Counter
	evicted         metric.Int64Counter
	relayFailures   metric.Int64Counter

	sessions sync.Map // session id -> sessionStart

	inFlight map[string]*inFlight                    // calls being served, by method of the series (inflight.go)
	names    *memo[nameKey, string]                  // span names with a target
	series   *memo[seriesKey, []metric.RecordOption] // opDuration's attributes, by series
}

// The most span names, and series of mcp.server.operation.duration, that
// an Observer keeps made: past them, it makes them again for each call
// (and still records every call). maxSeries is about the SDK's default
// limit of series per instrument (2,000; sdkmetric.WithCardinalityLimit).
const (
	maxNames  = 1024
	maxSeries = 2048
)

var _ httptransport.Observer = (*Observer)(nil)

// sessionStart is what the observer keeps of an open session for its
// duration's record.
type sessionStart struct {
	at        time.Time
	version   string
	transport httptransport.Transport
}

// New returns an Observer that records to opts' providers; nil opts means
// the global ones. It fails only if an instrument cannot be made.
func New(opts *Options) (*Observer, error) {
	if opts == nil {
		opts = &Options{}
	}
	tp, mp, prop := opts.TracerProvider, opts.MeterProvider, opts.Propagator
	if tp == nil {
		tp = otel.GetTracerProvider()
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if prop == nil {
		prop = otel.GetTextMapPropagator()
		if len(prop.Fields()) == 0 {
			prop = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
		}
	}
	meter := mp.Meter(ScopeName)
	o := &Observer{
		tracer:     tp.Tracer(ScopeName),
		propagator: prop,
		inFlight:   newInFlight(),
		names:      newMemo[nameKey, string](maxNames),
		series:     newMemo[seriesKey, []metric.RecordOption](maxSeries),
	}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	o.opDuration, err = mcpconv.NewServerOperationDuration(meter, metric.WithExplicitBucketBoundaries(DurationBuckets...))
	add(err)
	o.sessionDuration, err = mcpconv.NewServerSessionDuration(meter, metric.WithExplicitBucketBoundaries(DurationBuckets...))
	add(err)
	_, err = meter.Int64ObservableUpDownCounter("mcpmount.server.calls.active", metric.WithUnit("{call}"),
		metric.WithDescription("MCP requests the engine is serving."), metric.WithInt64Callback(o.observeInFlight))
	add(err)
	o.sessionsActive, err = meter.Int64UpDownCounter("mcpmount.server.sessions.active", metric.WithUnit("{session}"),
		metric.WithDescription("2025-era and 2024-11-05 sessions served by this instance."))
	add(err)
	o.streamsActive, err = meter.Int64UpDownCounter("mcpmount.server.streams.active", metric.WithUnit("{stream}"),
		metric.WithDescription("Held streams open: 2026-07-28 listens, 2025-era GET streams, 2024-11-05 event streams."))
	add(err)
	o.refusals, err = meter.Int64Counter("mcpmount.server.refusals", metric.WithUnit("{request}"),
		metric.WithDescription("HTTP requests refused before the engine saw them, by status and reason."))
	add(err)
	o.dropped, err = meter.Int64Counter("mcpmount.server.messages.dropped", metric.WithUnit("{message}"),
		metric.WithDescription("Messages dropped because a queue was full."))
	add(err)
	o.evicted, err = meter.Int64Counter("mcpmount.server.events.evicted", metric.WithUnit("{event}"),
		metric.WithDescription("Events the event store evicted to stay within its bounds."))
	add(err)
	o.relayFailures, err = meter.Int64Counter("mcpmount.server.relay.failures", metric.WithUnit("{message}"),
		metric.WithDescription("Messages that could not be published to a session's other instances."))
	add(err)
	if len(errs) > 0 {
		return nil, fmt.Errorf("otelmcp: making instruments: %v", errs)
	}
	return o, nil
}
