package otelmcp_test

import (
	"context"
	"log"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/otelmcp"
)

// TestErrorHandlerBoundsExportFailures: issue 31 item 3. With spans
// exported to a pipe nobody reads any more (a collector gone), the SDK
// reports a failed export for each of 50 calls; through ErrorHandler they
// write at most 10 lines, each error quoted. (The SDK's handler is the
// process's: the test sets it, so it does not run in parallel, and puts
// back one that writes to the standard logger, as the default does.)
func TestErrorHandlerBoundsExportFailures(t *testing.T) {
	logs := &testutil.CountingLog{Keep: 1 << 20}
	otel.SetErrorHandler(otelmcp.ErrorHandler(slog.New(slog.NewJSONHandler(logs, nil))))
	t.Cleanup(func() { otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Print(err) })) })
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Close() // every write to w fails from now on
	t.Cleanup(func() { _ = w.Close() })
	exporter, err := stdouttrace.New(stdouttrace.WithWriter(w))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, nil, sdktrace.WithSyncer(exporter))
	cs := f.connect(t, "2025-11-25")
	for i := range 50 {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	reported := 0
	for _, rec := range logs.Records() {
		if rec["msg"] != "otelmcp: OpenTelemetry reported an error" {
			continue
		}
		reported++
		if e, _ := rec["error"].(string); !strings.HasPrefix(e, `"`) || !strings.Contains(e, "broken pipe") {
			t.Errorf("error %q, want the export's error quoted", e)
		}
	}
	if reported == 0 || reported > logval.Burst {
		t.Errorf("%d lines for the failed exports of 50 calls, want 1 to %d", reported, logval.Burst)
	}
}
