package mcpgo_test

import (
	"bytes"
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// listChanges is an event store that counts the tool-list changes
// appended to it.
type listChanges struct {
	*httptransport.MemoryEventStore
	n    atomic.Int64
	want int64
	all  chan struct{} // closed once want have been appended
}

func (c *listChanges) Append(ctx context.Context, session, stream string, index int, data []byte) error {
	if bytes.Contains(data, []byte("notifications/tools/list_changed")) && c.n.Add(1) == c.want {
		close(c.all)
	}
	return c.MemoryEventStore.Append(ctx, session, stream, index, data)
}

// TestBroadcastBounded: a tool-list change reaches the stream of every
// 2025-11-25 session open on the engine with at most 64 goroutines more
// than before, however many sessions there are (it took two a session:
// one taking mcp-go's notification, one sending it).
func TestBroadcastBounded(t *testing.T) {
	const n = 1000
	srv := server.NewMCPServer("broadcast", "1.0.0", server.WithToolCapabilities(true))
	events := &listChanges{MemoryEventStore: httptransport.NewMemoryEventStore(nil), want: n, all: make(chan struct{})}
	url := serveQuiet(t, srv, httptransport.Options{Events: events, MaxSessionsPerAddress: -1})
	for range n {
		rawSession(t, url)
	}
	waitNoHandlerGoroutines(t, "idle sessions")
	base := runtime.NumGoroutine()
	peak := testutil.PeakGoroutines(events.all, 100*time.Microsecond)
	srv.AddTool(newEchoTool("late"))
	select {
	case <-events.all:
	case <-time.After(wait):
		t.Fatalf("%d of %d sessions got the list change", events.n.Load(), n)
	}
	added := peak() - base
	t.Logf("a list change to %d sessions: %d goroutines at most beside %d", n, added, base)
	if added > 64 {
		t.Errorf("a list change to %d sessions took %d goroutines more, want at most 64", n, added)
	}
}
