package gosdk_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// TestIdleSessionCost measures what an idle 2025 session costs an
// instance through the go-sdk engine (the README states it): live heap
// and goroutines per session, over 2,000 sessions that initialized and
// then went quiet for longer than the engine's SessionLinger. It costs no
// goroutine; with a negative SessionLinger (every session's SDK session
// kept connected) it costs one, the SDK's connection reader.
func TestIdleSessionCost(t *testing.T) {
	for _, tc := range []struct {
		name          string
		linger        time.Duration
		maxGoroutines float64
		maxKiB        float64
	}{
		{"default", 50 * time.Millisecond, 0.01, 8},
		{"kept connected", -1, 1.05, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perSession, goroutines := idleSessionCost(t, tc.linger)
			t.Logf("an idle session: %.1f KiB (live heap and stacks), %.3f goroutines", perSession, goroutines)
			if perSession > tc.maxKiB {
				t.Errorf("an idle session costs %.1f KiB, want at most %.0f", perSession, tc.maxKiB)
			}
			if goroutines > tc.maxGoroutines {
				t.Errorf("an idle session holds %.3f goroutines, want at most %.2f", goroutines, tc.maxGoroutines)
			}
		})
	}
}

func idleSessionCost(t *testing.T, linger time.Duration) (kib, goroutines float64) {
	server := mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, nil)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet, SessionLinger: linger})
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
	time.Sleep(max(linger, 0) + 100*time.Millisecond)
	heap0, g0 := measure()
	// Four clients at once: the sessions are the same, made in half the
	// time on two cores.
	var made atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for made.Add(1) <= n {
				rawSession(t, srv.URL)
			}
		})
	}
	wg.Wait()
	if linger > 0 {
		// The sessions' SDK sessions, connected for their
		// notifications/initialized, close after the linger.
		deadline := time.Now().Add(10 * time.Second)
		for runtime.NumGoroutine() > g0+n/100 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	heap1, g1 := measure()
	return float64(heap1-heap0) / n / 1024, float64(g1-g0) / n
}
