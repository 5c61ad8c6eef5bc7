package mcpgo_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpmount/mcpmount/adapters/mcpgo"
	"github.com/mcpmount/mcpmount/httptransport"
)

// TestFinishedListensLeaveNothing: subscriptions/listen streams opened and
// closed leave nothing behind in the engine while it runs. A finished
// listen was once kept reachable until Close (about 50 heap objects each:
// its session, its pipe, its request's headers), so a long-running server
// grew with every listen it had ever served.
func TestFinishedListensLeaveNothing(t *testing.T) {
	unregistered := make(chan struct{}, 1024)
	hooks := &server.Hooks{}
	hooks.AddOnUnregisterSession(func(context.Context, server.ClientSession) { unregistered <- struct{}{} })
	srv := server.NewMCPServer("leak", "1.0.0", server.WithToolCapabilities(true), server.WithHooks(hooks))
	url := serveQuiet(t, srv, httptransport.Options{MaxSessionsPerAddress: -1})
	addr := strings.TrimPrefix(url, "http://")
	churn := func(n int) {
		for i := range n {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			listenOn(t, conn, addr, i+1)
			conn.Close()
			select { // the listen's session goes as the listen ends
			case <-unregistered:
			case <-time.After(wait):
				t.Fatalf("listen %d not ended %s after its client left", i+1, wait)
			}
		}
		waitNoHandlerGoroutines(t, "finished listens")
	}
	churn(50) // warm up: the server's and the client's first allocations
	before := heapObjects()
	const n = 1000
	churn(n)
	after := heapObjects()
	grown := int64(after) - int64(before)
	t.Logf("heap objects: %d before, %d after %d listens (%+.1f a listen)", before, after, n, float64(grown)/n)
	if grown > 5*n {
		t.Errorf("%d listens opened and closed left %d more heap objects (%.1f each), want at most 5 each", n, grown, float64(grown)/n)
	}
}

// heapObjects returns the number of live heap objects, after collecting
// what is not.
func heapObjects() uint64 {
	runtime.GC()
	runtime.GC() // sync.Pool's victim cache goes on the second
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapObjects
}

// serveQuiet serves srv through an engine of its own and a handler with
// opts (logging nothing) on a loopback server, stopped at the test's end,
// and returns the server's URL.
func serveQuiet(t *testing.T, srv *server.MCPServer, opts httptransport.Options) string {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := mcpgo.NewEngine(srv, &mcpgo.Options{Logger: quiet})
	opts.Logger = quiet
	h := httptransport.New(engine, &opts)
	hs := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		_ = h.Shutdown(ctx)
		hs.Close()
		_ = engine.Close()
	})
	return hs.URL
}
