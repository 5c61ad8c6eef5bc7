// This file adds what BenchmarkObserved measures: the go-sdk and mcp-go
// engines behind the transport with an otelmcp Observer on the real
// OpenTelemetry SDK, as a service would run it, and without one.

package bench

import (
	"context"
	"fmt"
	"slices"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/otelmcp"
)

// Observers of BenchmarkObserved, in table order: none; every call
// traced; a tenth of the traces kept, as services often sample. Spans go
// through the SDK's batch span processor with its defaults to an
// exporter that drops them; metrics are aggregated for a reader that is
// never read.
var Observers = []string{"none", "otel", "otel-sampled10"}

// ObservedEngines are the engines of BenchmarkObserved, named as their
// rows of BenchmarkCall.
var ObservedEngines = []string{MCPMountGoSDK, MCPMountMCPGo}

// ObserverParts are the observers of BenchmarkObserverParts, which tell
// apart what otelmcp's cost is made of: no-op providers (the transport's
// seam and otelmcp's own code); the SDK with each span exported as it
// ends (WithSyncer), so none is held; the batch span processor ("otel").
var ObserverParts = []string{"none", "noop", "otel-syncer", "otel"}

// NewObserver returns the observer named name (one of Observers or
// ObserverParts; nil for "none") and what shuts its providers down.
func NewObserver(name string) (httptransport.Observer, func(), error) {
	// WithBatcher starts the processor's goroutine as it is called: only
	// for an observer that uses it.
	sampler, batched := sdktrace.AlwaysSample(), true
	switch name {
	case "none":
		return nil, func() {}, nil
	case "noop":
		obs, err := otelmcp.New(&otelmcp.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})
		return obs, func() {}, err
	case "otel":
	case "otel-syncer":
		batched = false
	case "otel-sampled10":
		sampler = sdktrace.ParentBased(sdktrace.TraceIDRatioBased(0.1))
	default:
		return nil, nil, fmt.Errorf("no observer %q", name)
	}
	spans := sdktrace.WithSyncer(tracetest.NewNoopExporter())
	if batched {
		spans = sdktrace.WithBatcher(tracetest.NewNoopExporter())
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), spans)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	obs, err := otelmcp.New(&otelmcp.Options{TracerProvider: tp, MeterProvider: mp})
	stop := func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	}
	if err != nil {
		stop()
		return nil, nil, err
	}
	return obs, stop, nil
}

// ObservedVariant returns the variant engine (one of ObservedEngines)
// with the observer named obs.
func ObservedVariant(engine, obs string) (Variant, error) {
	newEngine := map[string]func(httptransport.Observer) *Instance{
		MCPMountGoSDK: newGoSDKInstance,
		MCPMountMCPGo: newMCPGoInstance,
	}[engine]
	if newEngine == nil {
		return Variant{}, fmt.Errorf("no engine %q", engine)
	}
	if !slices.Contains(Observers, obs) && !slices.Contains(ObserverParts, obs) {
		return Variant{}, fmt.Errorf("no observer %q", obs)
	}
	return Variant{Name: engine + "/observer=" + obs, New: func(Mode) *Instance {
		o, stop, err := NewObserver(obs)
		if err != nil {
			panic(err) // obs is one of the known names
		}
		in := newEngine(o)
		return &Instance{Handler: in.Handler, Broadcast: in.Broadcast, Close: func() {
			in.Close()
			stop()
		}}
	}}, nil
}
