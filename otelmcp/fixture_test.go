package otelmcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/otelmcp"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type echoArgs struct {
	Text string `json:"text"`
}

// fixture is a go-sdk server behind the transport with an otelmcp
// Observer, on the real OpenTelemetry SDK (spans kept in memory, metrics
// read by hand), behind otelhttp, on loopback.
type fixture struct {
	url    string
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	tp     *sdktrace.TracerProvider
}

// toolSpan is the name of the span the echo tool starts itself.
const toolSpan = "echo.work"

// newServer is the MCP server the tests call: echo (which starts a span
// of its own from its context), fail (a tool error), hold (which returns
// when its call is cancelled), a prompt and a resource.
func newServer(tp trace.TracerProvider) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "otel-fixture", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		_, span := tp.Tracer("tool").Start(ctx, toolSpan)
		defer span.End()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it failed"}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "hold"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		<-ctx.Done() // until the client gives up
		return nil, nil, ctx.Err()
	})
	server.AddPrompt(&mcp.Prompt{Name: "greet"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	server.AddResource(&mcp.Resource{URI: "test://doc", Name: "doc"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "the doc"}}}, nil
	})
	return server
}

func newFixture(t *testing.T, opts *httptransport.Options) *fixture {
	t.Helper()
	return newSampledFixture(t, opts, sdktrace.AlwaysSample())
}

// newSampledFixture is newFixture with the tracer's sampler.
func newSampledFixture(t *testing.T, opts *httptransport.Options, sampler sdktrace.Sampler) *fixture {
	t.Helper()
	return newFixtureWith(t, opts, sdktrace.WithSampler(sampler))
}

// newFixtureWith is newFixture with more options of the TracerProvider.
func newFixtureWith(t *testing.T, opts *httptransport.Options, tpOpts ...sdktrace.TracerProviderOption) *fixture {
	t.Helper()
	f := &fixture{spans: tracetest.NewInMemoryExporter(), reader: sdkmetric.NewManualReader()}
	f.tp = sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithSyncer(f.spans)}, tpOpts...)...)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	obs, err := otelmcp.New(&otelmcp.Options{TracerProvider: f.tp, MeterProvider: mp})
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &httptransport.Options{}
	}
	opts.Observer = obs
	opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(newServer(f.tp), &gosdk.Options{Logger: opts.Logger})
	h := httptransport.New(engine, opts)
	srv := httptest.NewServer(otelhttp.NewHandler(withUser(h), "mcp", otelhttp.WithTracerProvider(f.tp), otelhttp.WithMeterProvider(mp)))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		srv.Close()
		engine.Close()
		_ = f.tp.Shutdown(ctx)
		_ = mp.Shutdown(ctx)
	})
	f.url = srv.URL + "/mcp"
	return f
}

// withUser makes the X-Test-User header the request's principal, as an
// authentication middleware would.
func withUser(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u := r.Header.Get("X-Test-User"); u != "" {
			r = r.WithContext(identity.NewContext(r.Context(), &identity.Info{Subject: u}))
		}
		next.ServeHTTP(w, r)
	})
}

// connect opens a go-sdk client session: at version over Streamable HTTP,
// or over 2024-11-05 HTTP+SSE when version is that.
func (f *fixture) connect(t *testing.T, version string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, nil)
	// The SSE transport's event stream lives as long as Connect's context.
	ctx := context.Background()
	var transport mcp.Transport = &mcp.StreamableClientTransport{Endpoint: f.url}
	opts := &mcp.ClientSessionOptions{ProtocolVersion: version}
	if version == httptransport.Version20241105 {
		transport, opts = &mcp.SSEClientTransport{Endpoint: f.url}, nil // the SSE transport speaks 2024-11-05 only
	}
	cs, err := client.Connect(ctx, transport, opts)
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// spansNamed returns the ended spans called name.
func (f *fixture) spansNamed(name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range f.spans.GetSpans() {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

// oneSpan returns the one ended span called name.
func (f *fixture) oneSpan(t *testing.T, name string) tracetest.SpanStub {
	t.Helper()
	got := f.spansNamed(name)
	if len(got) != 1 {
		var names []string
		for _, s := range f.spans.GetSpans() {
			names = append(names, s.Name)
		}
		t.Fatalf("%d spans named %q; spans: %q", len(got), name, names)
	}
	return got[0]
}

func attrsOf(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := make(map[attribute.Key]attribute.Value, len(s.Attributes))
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// metrics collects what the reader holds now.
func (f *fixture) metrics(t *testing.T) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// find returns the metric called name, or fails.
func find(t *testing.T, rm metricdata.ResourceMetrics, name string) metricdata.Aggregation {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m.Data
			}
		}
	}
	t.Fatalf("no metric %q", name)
	return nil
}

// sumWhere adds the points of an Int64 sum whose attributes include want.
func sumWhere(t *testing.T, rm metricdata.ResourceMetrics, name string, want ...attribute.KeyValue) int64 {
	t.Helper()
	s, ok := find(t, rm, name).(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is %T, want an int64 sum", name, find(t, rm, name))
	}
	var n int64
	for _, dp := range s.DataPoints {
		if hasAll(dp.Attributes, want) {
			n += dp.Value
		}
	}
	return n
}

// histCount adds the counts of a float64 histogram's points whose
// attributes include want.
func histCount(t *testing.T, rm metricdata.ResourceMetrics, name string, want ...attribute.KeyValue) (n uint64, points []metricdata.HistogramDataPoint[float64]) {
	t.Helper()
	h, ok := find(t, rm, name).(metricdata.Histogram[float64])
	if !ok {
		t.Fatalf("%s is %T, want a float64 histogram", name, find(t, rm, name))
	}
	for _, dp := range h.DataPoints {
		if hasAll(dp.Attributes, want) {
			n += dp.Count
			points = append(points, dp)
		}
	}
	return n, points
}

func hasAll(set attribute.Set, want []attribute.KeyValue) bool {
	for _, kv := range want {
		if v, ok := set.Value(kv.Key); !ok || v != kv.Value {
			return false
		}
	}
	return true
}

// meta2026 is what every 2026-07-28 request carries in params._meta.
const meta2026 = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// post2026 sends one 2026-07-28 tools/call as user and returns the
// response and its body.
func (f *fixture) post2026(t *testing.T, user string, id int, tool string) (*http.Response, []byte) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"text":"hi"},"_meta":{%s}}}`, id, tool, meta2026)
	req, err := http.NewRequest(http.MethodPost, f.url, bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", httptransport.Version20260728)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	req.Header.Set("X-Test-User", user)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// rpcErrorCode reads the JSON-RPC error code of a JSON response body, or
// 0 without an error.
func rpcErrorCode(t *testing.T, body []byte) int64 {
	t.Helper()
	var m struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("response %q: %v", body, err)
	}
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

func readCloser(s string) io.ReadCloser { return io.NopCloser(bytes.NewReader([]byte(s))) }
