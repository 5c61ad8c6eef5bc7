package otelmcp_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/otelmcp"
)

// TestOperationDurationCountsEachCallOnce: n calls make n points in
// mcp.server.operation.duration, with the conventions' attributes and
// buckets, and calls in flight go back to zero.
func TestOperationDurationCountsEachCallOnce(t *testing.T) {
	for _, version := range []string{httptransport.Version20260728, httptransport.Version20251125, httptransport.Version20241105} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, nil)
			cs := f.connect(t, version)
			const n = 5
			for range n {
				if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{"text": "x"}}); err != nil {
				t.Fatal(err)
			}
			rm := f.metrics(t)
			echo := []attribute.KeyValue{
				attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", "echo"),
				attribute.String("gen_ai.operation.name", "execute_tool"), attribute.String("mcp.protocol.version", version),
				attribute.String("network.transport", "tcp"), attribute.String("network.protocol.name", "http"),
			}
			got, points := histCount(t, rm, "mcp.server.operation.duration", echo...)
			if got != n {
				t.Errorf("echo calls counted %d times, want %d", got, n)
			}
			for _, p := range points {
				if !slices.Equal(p.Bounds, otelmcp.DurationBuckets) {
					t.Errorf("bounds %v, want the conventions' %v", p.Bounds, otelmcp.DurationBuckets)
				}
				if _, ok := p.Attributes.Value("error.type"); ok {
					t.Errorf("echo point with error.type: %v", p.Attributes)
				}
				if _, ok := p.Attributes.Value("mcp.session.id"); ok {
					t.Errorf("session id on a metric (unbounded cardinality): %v", p.Attributes)
				}
			}
			if got, _ := histCount(t, rm, "mcp.server.operation.duration", attribute.String("gen_ai.tool.name", "fail"), attribute.String("error.type", "tool_error")); got != 1 {
				t.Errorf("tool error counted %d times, want 1", got)
			}
			if got := sumWhere(t, rm, "mcpmount.server.calls.active"); got != 0 {
				t.Errorf("calls in flight %d after all returned, want 0", got)
			}
		})
	}
}

// TestCallsInFlight: mcpmount.server.calls.active counts a call while
// the engine serves it, and no longer once its client gave up on it.
func TestCallsInFlight(t *testing.T) {
	f := newFixture(t, nil)
	cs := f.connect(t, httptransport.Version20260728)
	active := func() int64 {
		return sumWhere(t, f.metrics(t), "mcpmount.server.calls.active", attribute.String("mcp.method.name", "tools/call"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // before the session's Close, which waits for the call
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{"text": "x"}})
		done <- err
	}()
	waitFor(t, "the held call counted in flight", func() bool { return active() == 1 })
	cancel()
	<-done
	waitFor(t, "the cancelled call counted out", func() bool { return active() == 0 })
}

// TestUnsampledCallsMeasured: with a sampler that keeps no trace (as a
// service keeping a share of them drops most), no span is exported, and
// every call, a tool error's too, is still in the metrics.
func TestUnsampledCallsMeasured(t *testing.T) {
	f := newSampledFixture(t, nil, sdktrace.NeverSample())
	cs := f.connect(t, httptransport.Version20260728)
	for _, tool := range []string{"echo", "echo", "fail"} {
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "hi"}}); err != nil {
			t.Fatal(err)
		}
	}
	if spans := f.spans.GetSpans(); len(spans) != 0 {
		t.Errorf("%d spans exported by a sampler that keeps none, first %q", len(spans), spans[0].Name)
	}
	rm := f.metrics(t)
	if got, _ := histCount(t, rm, "mcp.server.operation.duration", attribute.String("gen_ai.tool.name", "echo")); got != 2 {
		t.Errorf("echo counted %d times, want 2", got)
	}
	if got, _ := histCount(t, rm, "mcp.server.operation.duration", attribute.String("gen_ai.tool.name", "fail"), attribute.String("error.type", "tool_error")); got != 1 {
		t.Errorf("tool error counted %d times, want 1", got)
	}
}

// TestSessionsAndStreams: a 2025-era session and a 2024-11-05 one count
// as open sessions (the latter's event stream as a held stream) while
// they last; closing them records each session's duration once.
func TestSessionsAndStreams(t *testing.T) {
	f := newFixture(t, nil)
	modern := f.connect(t, httptransport.Version20251125)
	legacy := f.connect(t, httptransport.Version20241105)
	rm := f.metrics(t)
	if got := sumWhere(t, rm, "mcpmount.server.sessions.active", attribute.String("mcpmount.transport", "streamable-http")); got != 1 {
		t.Errorf("streamable sessions open %d, want 1", got)
	}
	if got := sumWhere(t, rm, "mcpmount.server.sessions.active", attribute.String("mcpmount.transport", "sse")); got != 1 {
		t.Errorf("2024-11-05 sessions open %d, want 1", got)
	}
	if got := sumWhere(t, rm, "mcpmount.server.streams.active", attribute.String("mcpmount.stream.kind", "sse")); got != 1 {
		t.Errorf("2024-11-05 event streams open %d, want 1", got)
	}
	if err := modern.Close(); err != nil { // DELETE ends the session
		t.Fatal(err)
	}
	_ = legacy.Close() // the event stream ends, and its session with it
	// The 2024-11-05 session ends when the server sees its stream drop.
	waitFor(t, "sessions to end", func() bool {
		return sumWhere(t, f.metrics(t), "mcpmount.server.sessions.active") == 0
	})
	rm = f.metrics(t)
	if got, _ := histCount(t, rm, "mcp.server.session.duration", attribute.String("mcp.protocol.version", httptransport.Version20251125)); got != 1 {
		t.Errorf("2025-11-25 session durations %d, want 1", got)
	}
	if got, _ := histCount(t, rm, "mcp.server.session.duration", attribute.String("mcp.protocol.version", httptransport.Version20241105)); got != 1 {
		t.Errorf("2024-11-05 session durations %d, want 1", got)
	}
	waitFor(t, "streams to close", func() bool {
		return sumWhere(t, f.metrics(t), "mcpmount.server.streams.active") == 0
	})
}

// waitFor polls cond until it holds, failing after 10 seconds: for what
// the server does after the client has returned.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
