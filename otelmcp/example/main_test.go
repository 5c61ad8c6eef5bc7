package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// syncBuffer is a bytes.Buffer the exporter's goroutine and the test can
// share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestScrapeMetrics runs the example's endpoint on loopback, calls its
// tool with go-sdk's client, scrapes /metrics over HTTP and parses it
// with the Prometheus text parser: the operation histogram counts each
// call once under the conventions' name and labels. The traces printed
// hold the call's span and the tool's.
func TestScrapeMetrics(t *testing.T) {
	var traces syncBuffer
	a, err := newApp(&traces, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a.mux)
	defer srv.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	for range n {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"key": "k"}}); err != nil {
			t.Fatal(err)
		}
	}
	_ = cs.Close()

	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	ops := families["mcp_server_operation_duration_seconds"]
	if ops == nil || ops.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("no mcp_server_operation_duration_seconds histogram; families: %v", names(families))
	}
	var calls uint64
	for _, m := range ops.GetMetric() {
		l := labels(m)
		if l["mcp_method_name"] == "tools/call" && l["gen_ai_tool_name"] == "lookup" {
			calls += m.GetHistogram().GetSampleCount()
			if l["mcp_protocol_version"] != "2026-07-28" || l["network_transport"] != "tcp" {
				t.Errorf("labels %v", l)
			}
		}
	}
	if calls != n {
		t.Errorf("tools/call lookup counted %d times, want %d", calls, n)
	}
	if f := families["mcpmount_server_calls_active"]; f == nil {
		t.Errorf("no mcpmount_server_calls_active; families: %v", names(families))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.close(ctx); err != nil { // flushes the spans
		t.Fatal(err)
	}
	out := traces.String()
	for _, want := range []string{`"Name": "tools/call lookup"`, `"Name": "db.query"`, `"Key": "gen_ai.tool.name"`} {
		if !strings.Contains(out, want) {
			t.Errorf("printed traces lack %s", want)
		}
	}
}

func labels(m *dto.Metric) map[string]string {
	out := make(map[string]string)
	for _, l := range m.GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func names(f map[string]*dto.MetricFamily) []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	return out
}
