// Command example serves an MCP endpoint observed with OpenTelemetry:
// each call's span (nested under otelhttp's HTTP server span, with the
// tool's own span under it) is printed to stdout, and the metrics are
// served in the Prometheus format on /metrics.
//
//	go run ./example -addr 127.0.0.1:8080 -rate 5 -burst 10
//
// then point an MCP client at http://127.0.0.1:8080/mcp and scrape
// http://127.0.0.1:8080/metrics.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/otelmcp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on")
	perSecond := flag.Float64("rate", 0, "requests per second allowed to each principal (0: no limit)")
	burst := flag.Int("burst", 0, "requests a principal may send at once (0: the rate rounded up)")
	flag.Parse()
	if err := run(*addr, *perSecond, *burst); err != nil {
		log.Fatal(err)
	}
}

func run(addr string, perSecond float64, burst int) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening: %w", err)
	}
	a, err := newApp(os.Stdout, perSecond, burst)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: a.mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = a.close(sctx)
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// app is the example's endpoint: /mcp and /metrics, and what flushes and
// stops them.
type app struct {
	mux   *http.ServeMux
	close func(context.Context) error
}

// newApp builds the endpoint: spans go to traces (as JSON), metrics to a
// Prometheus registry served on /metrics.
func newApp(traces io.Writer, perSecond float64, burst int) (*app, error) {
	exp, err := stdouttrace.New(stdouttrace.WithWriter(traces), stdouttrace.WithPrettyPrint())
	if err != nil {
		return nil, fmt.Errorf("stdout exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp))
	reg := prometheus.NewRegistry()
	promExp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, fmt.Errorf("prometheus exporter: %w", err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(promExp))

	obs, err := otelmcp.New(&otelmcp.Options{TracerProvider: tp, MeterProvider: mp})
	if err != nil {
		return nil, err
	}
	opts := &httptransport.Options{Observer: obs}
	if perSecond > 0 {
		opts.RateLimit = &httptransport.RateLimit{PerSecond: perSecond, Burst: burst}
	}
	engine := gosdk.NewEngine(newServer(tp), &gosdk.Options{Logger: slog.Default()})
	h := httptransport.New(engine, opts)

	mux := http.NewServeMux()
	mux.Handle("/mcp", otelhttp.NewHandler(h, "mcp", otelhttp.WithTracerProvider(tp), otelhttp.WithMeterProvider(mp)))
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	return &app{mux: mux, close: func(ctx context.Context) error {
		err := h.Shutdown(ctx)
		engine.Close()
		return errors.Join(err, tp.Shutdown(ctx), mp.Shutdown(ctx))
	}}, nil
}

type lookupArgs struct {
	Key string `json:"key" jsonschema:"the key to look up"`
}

// newServer is an MCP server with one tool, lookup, whose handler starts a
// span of its own: in the trace it nests under the call's span.
func newServer(tp trace.TracerProvider) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "otel-example", Version: "1.0.0"}, nil)
	tracer := tp.Tracer("example/lookup")
	mcp.AddTool(server, &mcp.Tool{Name: "lookup", Description: "Looks a key up in a (pretend) database."},
		func(ctx context.Context, req *mcp.CallToolRequest, a lookupArgs) (*mcp.CallToolResult, any, error) {
			_, span := tracer.Start(ctx, "db.query")
			defer span.End()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "value of " + a.Key}}}, nil, nil
		})
	return server
}
