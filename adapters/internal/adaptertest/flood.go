package adaptertest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// initNotification is initialize sent without an id: a request no one may
// answer (JSON-RPC 2.0 section 4.1), which an engine waiting for its own
// answer would hold forever.
const initNotification = `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"1"}}}`

// CheckNotificationFlood sends n initialize notifications to url from 16
// clients, each request with the headers header(i) gives (nil for none),
// and checks what a user would see: each is refused at once with 400 (a
// client that waits past 10 s counts as unanswered), none takes a place in
// the session bounds, so the process's goroutines come back to where they
// were and a go-sdk client still connects and lists tools afterwards.
func CheckNotificationFlood(t *testing.T, url string, n int, header func(i int) http.Header) {
	t.Helper()
	base := runtime.NumGoroutine()
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	var next, refused atomic.Int64
	var mu sync.Mutex
	other := map[string]int{}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				got := postNotification(client, url, header, i)
				if got == "400" {
					refused.Add(1)
					continue
				}
				mu.Lock()
				other[got]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	client.CloseIdleConnections()
	if refused.Load() != int64(n) {
		t.Errorf("%d of %d initialize notifications refused with 400; the others got %v", refused.Load(), n, other)
	}
	WaitGoroutines(t, base)
	cs := Connect(t, url, httptransport.Version20251125, nil, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Errorf("a client after the flood: %v", err)
	}
	_ = cs.Close()
}

// postNotification sends one initialize notification and returns its
// status, or what went wrong.
func postNotification(client *http.Client, url string, header func(int) http.Header, i int) string {
	req, _ := http.NewRequest("POST", url, strings.NewReader(initNotification))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if header != nil {
		for k, v := range header(i) {
			req.Header[k] = v
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "no answer"
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return fmt.Sprint(resp.StatusCode)
}

// WaitGoroutines waits up to 10 s for the process's goroutines to come
// back to at most base and a few (the test's own client connections
// closing), and fails the test if they do not.
func WaitGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		n := runtime.NumGoroutine()
		if n <= base+4 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d goroutines 10 s after the load, %d before", n, base)
			return
		}
		<-tick.C
	}
}
