package gosdk_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestIdleSessionsReleased: 2025-era sessions whose clients never send
// DELETE (a complaint against the peers: sessions leak) release their SDK
// ServerSession and their store record once idle, here with a store passed
// in Options, whose records expire by their TTL. In a synctest bubble,
// where the idle timeout passes on the bubble's clock.
func TestIdleSessionsReleased(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		server := mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, nil)
		engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		store := httptransport.NewMemorySessionStore()
		h := httptransport.New(engine, &httptransport.Options{Sessions: store, SessionIdleTimeout: time.Second})
		srv := httptest.NewUnstartedServer(h)
		mn.Serve(srv, false)
		stopAtCleanup(t, h, srv, engine)
		count := func() (n int) {
			for range server.Sessions() {
				n++
			}
			return n
		}
		engine.Describe(context.Background())
		before := count()
		for i := 0; i < 20; i++ {
			rawSessionVia(t, mn.Client(), srv.URL+"/mcp")
		}
		if n := count(); n < before+20 {
			t.Fatalf("%d SDK sessions, want >= %d", n, before+20)
		}
		deadline := time.Now().Add(10 * time.Second)
		for count() != before || store.Len() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("after idle timeout: %d SDK sessions (baseline %d), %d records", count(), before, store.Len())
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}
