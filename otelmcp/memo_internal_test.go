package otelmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestMemoBounded: stores from many goroutines at once keep at most max
// keys, each with its value.
func TestMemoBounded(t *testing.T) {
	const max = 100
	m := newMemo[int, string](max)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 3 * max {
				m.store(i, fmt.Sprint(i))
				m.store(g*1000+i, fmt.Sprint(g*1000+i))
			}
		})
	}
	wg.Wait()
	if m.len() != max {
		t.Fatalf("%d keys kept, want %d", m.len(), max)
	}
	kept := 0
	for k := range 9000 {
		if v, ok := m.load(k); ok {
			kept++
			if v != fmt.Sprint(k) {
				t.Errorf("key %d keeps %q", k, v)
			}
		}
	}
	if kept != max {
		t.Errorf("%d keys load, want %d", kept, max)
	}
}

// callObserver is an Observer on the real SDK, spans kept in memory and
// metrics read by hand.
type callObserver struct {
	*Observer
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
}

func newCallObserver(t *testing.T) *callObserver {
	t.Helper()
	c := &callObserver{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(c.spans))
	// Above the SDK's default of 2,000 series per instrument, past which
	// it counts calls in an overflow series.
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(c.reader), sdkmetric.WithCardinalityLimit(4*maxSeries))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) })
	var err error
	if c.Observer, err = New(&Options{TracerProvider: tp, MeterProvider: mp}); err != nil {
		t.Fatal(err)
	}
	return c
}

// call observes a 2026-07-28 tools/call of tool answered with resp
// (made for its id).
func (c *callObserver) call(tool string, resp func(jsonrpc.ID) *jsonrpc.Message) {
	id := jsonrpc.Int64ID(1)
	info := &httptransport.CallInfo{Method: "tools/call", ID: id, Params: json.RawMessage(`{"name":"` + tool + `"}`),
		Version: httptransport.Version20260728, Transport: httptransport.TransportModern,
		RemoteAddr: "127.0.0.1:40000", Proto: "HTTP/1.1"}
	_, end := c.StartCall(context.Background(), info)
	end(httptransport.CallOutcome{Response: resp(id), Status: http.StatusOK})
}

func answered(id jsonrpc.ID) *jsonrpc.Message {
	return jsonrpc.NewResponse(id, json.RawMessage(`{"content":[]}`))
}

func noSuchTool(id jsonrpc.ID) *jsonrpc.Message {
	return jsonrpc.NewError(id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "unknown tool"})
}

// calls returns the number of calls of tool in
// mcp.server.operation.duration.
func (c *callObserver) calls(t *testing.T, tool string) uint64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := c.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "mcp.server.operation.duration" {
				for _, p := range h.DataPoints {
					if v, ok := p.Attributes.Value(keyToolName); ok && v.AsString() == tool {
						n += p.Count
					}
				}
			}
		}
	}
	return n
}

// TestMadeUpNamesNotKept: the span names of tools that turn out not to
// exist (-32602) are not kept, however many a client makes up, and their
// calls share one series.
func TestMadeUpNamesNotKept(t *testing.T) {
	c := newCallObserver(t)
	for i := range 3 * maxNames {
		c.call(fmt.Sprintf("made-up-%d", i), noSuchTool)
	}
	if n := c.names.len(); n != 0 {
		t.Errorf("%d names kept of tools that do not exist, want 0", n)
	}
	if n := c.series.len(); n != 1 {
		t.Errorf("%d series kept, want 1 (tools/call, -32602, no tool)", n)
	}
}

// TestPastTheMemos: past maxNames tools and maxSeries series, calls are
// still named and counted right, and the memos keep no more.
func TestPastTheMemos(t *testing.T) {
	c := newCallObserver(t)
	last := ""
	for i := range maxSeries + 10 {
		last = fmt.Sprintf("tool-%d", i)
		c.call(last, answered)
	}
	if n := c.names.len(); n != maxNames {
		t.Errorf("%d names kept, want %d", n, maxNames)
	}
	if n := c.series.len(); n != maxSeries {
		t.Errorf("%d series kept, want %d", n, maxSeries)
	}
	c.spans.Reset()
	c.call(last, answered)
	c.call(last, answered)
	spans := c.spans.GetSpans()
	if len(spans) != 2 || spans[1].Name != "tools/call "+last {
		t.Fatalf("spans %d, last named %q, want 2, %q", len(spans), spans[len(spans)-1].Name, "tools/call "+last)
	}
	if v := attribute.NewSet(spans[1].Attributes...); !v.HasValue(keyToolName) {
		t.Errorf("span without %s: %v", keyToolName, spans[1].Attributes)
	}
	if n := c.calls(t, last); n != 3 {
		t.Errorf("%s counted %d times, want 3", last, n)
	}
	if n := c.calls(t, "tool-0"); n != 1 {
		t.Errorf("tool-0 counted %d times, want 1", n)
	}
}

// TestCancelledMadeUpNamesNoSeries: a call cancelled before any answer
// (its client gone) names its tool in the metrics only if the tool is
// known to exist: otherwise a client could make up a series per name by
// dropping its requests at once.
func TestCancelledMadeUpNamesNoSeries(t *testing.T) {
	c := newCallObserver(t)
	cancel := func(tool string) {
		info := &httptransport.CallInfo{Method: "tools/call", ID: jsonrpc.Int64ID(1), Params: json.RawMessage(`{"name":"` + tool + `"}`),
			Version: httptransport.Version20260728, Transport: httptransport.TransportModern}
		_, end := c.StartCall(context.Background(), info)
		end(httptransport.CallOutcome{Cancelled: true, Status: http.StatusOK})
	}
	for i := range 100 {
		cancel(fmt.Sprintf("made-up-%d", i))
	}
	if n := c.calls(t, "made-up-7"); n != 0 {
		t.Errorf("a made-up tool's cancelled call counted under its name %d times", n)
	}
	if n := c.series.len(); n > 1 {
		t.Errorf("%d series kept for cancelled calls of made-up tools, want at most 1", n)
	}
	c.call("search", answered)
	cancel("search")
	if n := c.calls(t, "search"); n != 2 {
		t.Errorf("a known tool's calls under its name: %d, want 2 (answered and cancelled)", n)
	}
}
