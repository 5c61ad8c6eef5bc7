package gosdk_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/adapters/internal/adaptertest"
	"github.com/mcpmount/mcpmount/httptransport"
)

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`

// TestInitializeFloodBounded: 16 workers looping initialize against
// default Options (no auth), until 2,000 sessions were made (twice the
// bound) or for 10 s at most, leave the instance's live heap bounded: the
// sessions per client address (1,000) are a bound, at which each new
// session ends the address's longest idle one, and every handshake is
// still answered.
func TestInitializeFloodBounded(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "flood", Version: "1"}, nil)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Logger: quiet})
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)

	const enough = 2000
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	defer client.CloseIdleConnections()
	var ok, other atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && ok.Load() < enough {
				req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL, strings.NewReader(initBody))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				resp, err := client.Do(req)
				if err != nil {
					continue // the deadline, at the end
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK && resp.Header.Get("Mcp-Session-Id") != "" {
					ok.Add(1)
				} else {
					other.Add(1)
				}
			}
		}()
	}
	workersDone := make(chan struct{})
	go func() {
		wg.Wait()
		close(workersDone)
	}()
	var peak uint64
	tick := time.NewTicker(100 * time.Millisecond)
	for done := false; !done; {
		select {
		case <-tick.C:
		case <-workersDone:
			done = true
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	tick.Stop()
	sessions := 0
	for range server.Sessions() {
		sessions++
	}
	t.Logf("%d sessions created, %d other answers, live heap peak %.1f MiB, %d SDK sessions left, %d goroutines",
		ok.Load(), other.Load(), float64(peak)/(1<<20), sessions, runtime.NumGoroutine())
	if ok.Load() < 1200 { // the address bound and a fifth more: a slow or loaded machine makes fewer
		t.Errorf("only %d handshakes answered: the flood should reach the bound (1,000) and pass it", ok.Load())
	}
	if other.Load() != 0 {
		t.Errorf("%d handshakes not answered with a session: at the address bound the longest idle session makes room", other.Load())
	}
	if peak >= 256<<20 {
		t.Errorf("live heap peaked at %.1f MiB, want under 256 MiB", float64(peak)/(1<<20))
	}
	if sessions > 1000+2 { // the bound, and the engine's own watcher
		t.Errorf("%d SDK sessions open after the flood, want at most the address bound (1,000)", sessions)
	}
}

// TestInitializeNotificationFlood: initialize sent without an id, 2,000
// times from one address and 10,000 times from as many forwarded
// addresses, against default bounds (1,000 sessions an address, 10,000 an
// instance): each is refused at once, no handshake is left waiting for an
// answer the SDK never sends, and a client then gets a session.
func TestInitializeNotificationFlood(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "flood", Version: "1"}, nil)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Logger: quiet, TrustedProxies: []string{"127.0.0.1"}})
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	adaptertest.CheckNotificationFlood(t, srv.URL, 2000, nil)
	adaptertest.CheckNotificationFlood(t, srv.URL, 10000, func(i int) http.Header {
		return http.Header{"X-Forwarded-For": {fmt.Sprintf("198.51.%d.%d", i/256%256, i%256)}}
	})
}
