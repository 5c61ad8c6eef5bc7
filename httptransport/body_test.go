package httptransport_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestAnnouncedBodyNotReserved: a client that announces a large body
// (Content-Length up to MaxBodyBytes) and sends none of it makes the
// server hold little more than what arrived, not the announced size: many
// such connections cost the client a few hundred bytes each. In a
// synctest bubble on a MemNet: synctest.Wait returns once every handler
// waits for its body.
func TestAnnouncedBodyNotReserved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		const conns, announced = 20, 4 << 20 // the default MaxBodyBytes
		var entered atomic.Int32
		h := httptransport.New(httptransport.NewTestEngine(), nil)
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			entered.Add(1)
			h.ServeHTTP(w, r)
		}))
		mn.Serve(srv, false)
		defer srv.Close()
		defer srv.CloseClientConnections()
		defer h.Shutdown(context.Background())
		before := heapInUse()
		for range conns {
			c, err := mn.DialContext(context.Background(), "tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Length: %d\r\n\r\n{", srv.Listener.Addr(), announced)
		}
		synctest.Wait() // each handler is waiting for the body by now
		if entered.Load() < conns {
			t.Fatalf("%d of %d requests reached the handler", entered.Load(), conns)
		}
		if grew := heapInUse() - before; grew > conns*announced/4 {
			t.Errorf("%d connections announcing %d bytes and sending 1 grew the heap by %d MiB", conns, announced, grew>>20)
		}
	})
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
