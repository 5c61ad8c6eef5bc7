package httptransport_test

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestAnnouncedBodyNotReserved: a client that announces a large body
// (Content-Length up to MaxBodyBytes) and sends none of it makes the
// server hold little more than what arrived, not the announced size: many
// such connections cost the client a few hundred bytes each.
func TestAnnouncedBodyNotReserved(t *testing.T) {
	const conns, announced = 20, 4 << 20 // the default MaxBodyBytes
	var entered atomic.Int32
	h := httptransport.New(httptransport.NewTestEngine(), nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		entered.Add(1)
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer srv.CloseClientConnections()
	before := heapInUse()
	for range conns {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Length: %d\r\n\r\n{", srv.Listener.Addr(), announced)
	}
	for deadline := time.Now().Add(5 * time.Second); entered.Load() < conns; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d requests reached the handler", entered.Load(), conns)
		}
	}
	time.Sleep(100 * time.Millisecond) // each handler is waiting for the body by now
	if grew := heapInUse() - before; grew > conns*announced/4 {
		t.Errorf("%d connections announcing %d bytes and sending 1 grew the heap by %d MiB", conns, announced, grew>>20)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}
