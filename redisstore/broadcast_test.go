package redisstore_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/redisstore"
)

// broadcastGoroutines bounds the goroutines one list change may add while
// it reaches every session's event stream.
const broadcastGoroutines = 64

// countedEvents is a Store whose appends of list changes are counted, in
// batches or not.
type countedEvents struct {
	*redisstore.Store
	changes atomic.Int64
	batches atomic.Int64
	all     chan struct{} // closed once want have been appended
	want    int64
}

func (c *countedEvents) note(data []byte) {
	if bytes.Contains(data, []byte("notifications/tools/list_changed")) && c.changes.Add(1) == c.want {
		close(c.all)
	}
}

func (c *countedEvents) AppendBatch(ctx context.Context, events []httptransport.EventAppend) []error {
	c.batches.Add(1)
	errs := c.Store.AppendBatch(ctx, events)
	for i, e := range events {
		if errs == nil || errs[i] == nil {
			c.note(e.Data)
		}
	}
	return errs
}

func (c *countedEvents) Append(ctx context.Context, session, stream string, index int, data []byte) error {
	err := c.Store.Append(ctx, session, stream, index, data)
	if err == nil {
		c.note(data)
	}
	return err
}

// TestBroadcastBoundedOnRedis: a tool-list change reaches the event
// stream of every 2025-11-25 session open on an instance whose events are
// in Redis with at most broadcastGoroutines goroutines more than before,
// however many sessions there are. (The sessions have no GET stream: the
// change waits in Redis for the client to resume.) MCPMOUNT_BROADCAST_SESSIONS
// sets how many (2,000 by default; the scaling guide quotes 10,000).
func TestBroadcastBoundedOnRedis(t *testing.T) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("MCPMOUNT_BROADCAST_SESSIONS")); err == nil && v > 0 {
		n = v
	}
	store, _ := newStore(t, nil)
	events := &countedEvents{Store: store, all: make(chan struct{}), want: int64(n)}
	server := mcp.NewServer(&mcp.Implementation{Name: "broadcast", Version: "1"}, nil)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet, SessionLinger: time.Millisecond})
	h := httptransport.New(engine, &httptransport.Options{
		Sessions: store, Events: events, Logger: quiet,
		MaxSessions: 2 * n, MaxSessionsPerAddress: -1,
	})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
		srv.Close()
		engine.Close()
	})
	openSessions(t, srv.URL, n)
	base := settledGoroutines(t)

	peak := testutil.PeakGoroutines(events.all, time.Millisecond)
	start := time.Now()
	mcp.AddTool(server, &mcp.Tool{Name: "late"}, func(context.Context, *mcp.CallToolRequest, textArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	select {
	case <-events.all:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%d of %d sessions' list changes appended after 2 min", events.changes.Load(), n)
	}
	took := time.Since(start)
	added := peak() - base
	t.Logf("a list change to %d sessions: appended in %v (%d batches), %d goroutines at most beside %d", n, took.Round(time.Millisecond), events.batches.Load(), added, base)
	if added > broadcastGoroutines {
		t.Errorf("a list change to %d sessions took %d goroutines more, want at most %d", n, added, broadcastGoroutines)
	}
}

// openSessions opens n initialized 2025-11-25 sessions at url.
func openSessions(t *testing.T, url string, n int) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	post := func(sid, body string) (string, error) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := client.Do(req)
		if err != nil {
			return "", err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			return "", &httpStatusError{resp.StatusCode}
		}
		return resp.Header.Get("Mcp-Session-Id"), nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	per := (n + 7) / 8
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w * per; i < min(n, (w+1)*per); i++ {
				sid, err := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fan","version":"1"}}}`)
				if err == nil {
					_, err = post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("opening sessions: %v", err)
	}
}

type httpStatusError struct{ code int }

func (e *httpStatusError) Error() string { return "HTTP status " + strconv.Itoa(e.code) }

// settledGoroutines waits for the goroutines of the sessions' opening to
// end (their SDK sessions close after the engine's linger) and returns
// how many are left.
func settledGoroutines(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last := runtime.NumGoroutine()
	for stable := 0; stable < 20; {
		time.Sleep(10 * time.Millisecond)
		g := runtime.NumGoroutine()
		if g == last {
			stable++
		} else {
			stable, last = 0, g
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines did not settle: %d", g)
		}
	}
	return last
}
