package otelmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/otelmcp"
)

// benchBody is a 2026-07-28 tools/call answered as JSON (bench/'s
// json2026 scenario).
const benchBody = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"},"_meta":{` + meta2026 + `}}}`

// BenchmarkCall2026JSON is one 2026-07-28 JSON call over loopback HTTP
// through the go-sdk engine, without an observer and with otelmcp on the
// real SDK (every span sampled and batched to an exporter that drops it,
// metrics aggregated for a reader): the difference is what tracing and
// metrics add to a call.
func BenchmarkCall2026JSON(b *testing.B) {
	b.Run("observer=none", func(b *testing.B) { benchCall(b, nil) })
	b.Run("observer=otel", func(b *testing.B) {
		obs, stop := newBenchObserver(b)
		defer stop()
		benchCall(b, obs)
	})
}

// BenchmarkServe2026JSON is BenchmarkCall2026JSON served in process
// (Handler.ServeHTTP on a recorder): no network and no client, so only
// the server's work is measured.
func BenchmarkServe2026JSON(b *testing.B) {
	b.Run("observer=none", func(b *testing.B) { benchDirect(b, nil) })
	b.Run("observer=otel", func(b *testing.B) {
		obs, stop := newBenchObserver(b)
		defer stop()
		benchDirect(b, obs)
	})
}

// BenchmarkServe2026JSONServiceHeap is BenchmarkServe2026JSON in a
// process whose live heap is that of a service (64 MiB of small linked
// objects, standing for its caches and connections) rather than the
// benchmark's own 1-2 MB: there, garbage collections come as often as the
// bytes allocated per call make them, and the spans the batch processor
// holds weigh little beside the rest.
func BenchmarkServe2026JSONServiceHeap(b *testing.B) {
	heap := serviceHeap(64 << 20)
	defer runtime.KeepAlive(heap)
	b.Run("observer=none", func(b *testing.B) { benchDirect(b, nil) })
	b.Run("observer=otel", func(b *testing.B) {
		obs, stop := newBenchObserver(b)
		defer stop()
		benchDirect(b, obs)
	})
}

// heapNode is one object of serviceHeap: 64 bytes, one pointer.
type heapNode struct {
	next *heapNode
	_    [7]uint64
}

// serviceHeap returns a linked list of about size bytes.
func serviceHeap(size int) *heapNode {
	var head *heapNode
	for range size / 64 {
		head = &heapNode{next: head}
	}
	return head
}

// BenchmarkObserverAlone is the observer's own work for one call (start
// and end), without the transport or the engine: with every span sampled,
// and with none (a span the sampler drops is not recorded).
func BenchmarkObserverAlone(b *testing.B) {
	for _, v := range []struct {
		name    string
		sampler sdktrace.Sampler
	}{{"sampled=all", sdktrace.AlwaysSample()}, {"sampled=none", sdktrace.NeverSample()}} {
		b.Run(v.name, func(b *testing.B) {
			obs, stop := newObserverWith(b, sdktrace.WithBatcher(tracetest.NewNoopExporter()), sdktrace.WithSampler(v.sampler))
			defer stop()
			benchAlone(b, obs)
		})
	}
}

// benchAlone starts and ends one json2026 call's observation per loop.
func benchAlone(b *testing.B, obs *otelmcp.Observer) {
	m, err := jsonrpc.Decode([]byte(benchBody))
	if err != nil {
		b.Fatal(err)
	}
	info := &httptransport.CallInfo{Method: m.Method, ID: m.ID, Params: m.Params, Version: httptransport.Version20260728,
		Transport: httptransport.TransportModern, RemoteAddr: "127.0.0.1:40000", Proto: "HTTP/1.1"}
	resp := jsonrpc.NewResponse(m.ID, json.RawMessage(`{"content":[{"type":"text","text":"hello, world"}]}`))
	b.ReportAllocs()
	cost := startCost()
	for b.Loop() {
		_, end := obs.StartCall(context.Background(), info)
		end(httptransport.CallOutcome{Response: resp, Status: http.StatusOK})
	}
	cost.report(b)
}

// BenchmarkServe2026JSONSpans is BenchmarkServe2026JSON/observer=otel
// with what the tracer does varied, to tell apart what the observer's
// cost is made of: no-op providers (the seam and otelmcp's own code);
// the SDK's spans ended straight to the exporter (WithSyncer), which
// keeps none; the batch span processor with its default of 512 spans per
// export (observer=otel), and with 128.
func BenchmarkServe2026JSONSpans(b *testing.B) {
	b.Run("providers=noop", func(b *testing.B) {
		obs, err := otelmcp.New(&otelmcp.Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()})
		if err != nil {
			b.Fatal(err)
		}
		benchDirect(b, obs)
	})
	for _, v := range []struct {
		name  string
		spans sdktrace.TracerProviderOption
	}{
		{"spans=syncer", sdktrace.WithSyncer(tracetest.NewNoopExporter())},
		{"spans=batch512", sdktrace.WithBatcher(tracetest.NewNoopExporter())},
		{"spans=batch128", sdktrace.WithBatcher(tracetest.NewNoopExporter(), sdktrace.WithMaxExportBatchSize(128))},
	} {
		b.Run(v.name, func(b *testing.B) {
			obs, stop := newObserverWith(b, v.spans)
			defer stop()
			benchDirect(b, obs)
		})
	}
}

// newBenchObserver is otelmcp on the real SDK as a service would run it:
// every span sampled and batched (to an exporter that drops them), metrics
// aggregated for a reader.
func newBenchObserver(b *testing.B) (*otelmcp.Observer, func()) {
	return newObserverWith(b, sdktrace.WithBatcher(tracetest.NewNoopExporter()))
}

// newObserverWith is otelmcp on the real SDK with the tracer's options
// (by default every span sampled), metrics aggregated for a reader.
func newObserverWith(b *testing.B, spans ...sdktrace.TracerProviderOption) (*otelmcp.Observer, func()) {
	tp := sdktrace.NewTracerProvider(spans...)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	obs, err := otelmcp.New(&otelmcp.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		b.Fatal(err)
	}
	return obs, func() { _ = tp.Shutdown(context.Background()); _ = mp.Shutdown(context.Background()) }
}

func benchCall(b *testing.B, obs httptransport.Observer) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Observer: obs, Logger: quiet})
	srv := httptest.NewServer(h)
	defer func() {
		_ = h.Shutdown(context.Background())
		srv.Close()
		engine.Close()
	}()
	client := srv.Client()
	body := []byte(benchBody)
	do := func() {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Mcp-Protocol-Version", httptransport.Version20260728)
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "echo")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), "hello, world") {
			b.Fatalf("%d %s", resp.StatusCode, data)
		}
	}
	do()
	b.ReportAllocs()
	b.ResetTimer()
	cost := startCost()
	for b.Loop() {
		do()
	}
	cost.report(b)
}

// cost is what a benchmark's loop costs the process from its start: CPU
// time (user and system, the client's included, GC and the span batcher's
// goroutine too), steadier than wall time on a shared machine and what
// the observer costs a server; and garbage collections.
type cost struct {
	cpu time.Duration
	gcs uint32
}

// startCost reads the process's cost so far.
func startCost() cost {
	var c cost
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		c.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	c.gcs = ms.NumGC
	return c
}

// report reports the cost since c per iteration of b: cpu-ns/op and
// GCs/kop (collections per thousand iterations).
func (c cost) report(b *testing.B) {
	now := startCost()
	b.ReportMetric(float64(now.cpu-c.cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(now.gcs-c.gcs)*1000/float64(b.N), "GCs/kop")
}

// benchDirect serves the call through Handler.ServeHTTP in process, no
// network and no client: only the server's work is timed.
func benchDirect(b *testing.B, obs httptransport.Observer) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{Logger: quiet})
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Observer: obs, Logger: quiet})
	defer func() {
		_ = h.Shutdown(context.Background())
		engine.Close()
	}()
	header := http.Header{}
	header.Set("Content-Type", "application/json")
	header.Set("Accept", "application/json")
	header.Set("Mcp-Protocol-Version", httptransport.Version20260728)
	header.Set("Mcp-Method", "tools/call")
	header.Set("Mcp-Name", "echo")
	do := func() {
		req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(benchBody))
		req.Header = header.Clone()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "hello, world") {
			b.Fatalf("%d %s", rec.Code, rec.Body)
		}
	}
	do()
	b.ReportAllocs()
	b.ResetTimer()
	cost := startCost()
	for b.Loop() {
		do()
	}
	cost.report(b)
}
