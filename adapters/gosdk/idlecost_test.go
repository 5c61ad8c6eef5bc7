package gosdk_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// TestIdleSessionCost measures what an idle 2025 session costs an
// instance through the go-sdk engine (the README states it): live heap
// and goroutines per session, over 2,000 sessions that initialized and
// then went quiet.
func TestIdleSessionCost(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, nil)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	// No address bound: all 2,000 come from one address.
	h := httptransport.New(engine, &httptransport.Options{Logger: quiet, MaxSessionsPerAddress: -1})
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	rawSession(t, srv.URL) // warm up: the engine's watcher, the client's connection

	const n = 2000
	measure := func() (heap uint64, goroutines int) {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc + ms.StackInuse, runtime.NumGoroutine()
	}
	heap0, g0 := measure()
	for range n {
		rawSession(t, srv.URL)
	}
	heap1, g1 := measure()
	perSession := float64(heap1-heap0) / n / 1024
	goroutines := float64(g1-g0) / n
	t.Logf("an idle session: %.1f KiB (live heap and stacks), %.2f goroutines", perSession, goroutines)
	if perSession > 32 {
		t.Errorf("an idle session costs %.1f KiB, want at most 32", perSession)
	}
	if goroutines > 1.05 {
		t.Errorf("an idle session holds %.2f goroutines, want at most one (the SDK's connection reader)", goroutines)
	}
}
