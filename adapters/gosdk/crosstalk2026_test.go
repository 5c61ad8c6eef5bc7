package gosdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// lockstep is a cyclic barrier: each of n callers waits in wait until all
// n have arrived, then all go on together.
type lockstep struct {
	mu      sync.Mutex
	n, here int
	round   chan struct{} // closed when the current round is complete
}

func newLockstep(n int) *lockstep { return &lockstep{n: n, round: make(chan struct{})} }

func (l *lockstep) wait(ctx context.Context) error {
	l.mu.Lock()
	round := l.round
	l.here++
	if l.here == l.n {
		l.here = 0
		l.round = make(chan struct{})
		close(round)
	}
	l.mu.Unlock()
	select {
	case <-round:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestNoCrossTalk2026: with the Go SDK engine, concurrent 2026-07-28
// tools/call requests that each carry a progress token get only their own
// notifications/progress, in order, on their own SSE response, then their
// own response. The calls run in lockstep (each waits for all the others
// between two notifications), so their notifications are interleaved in
// time: a client would otherwise see another call's progress on its own
// progress bar. TestNoCrossTalk covers 2025-era sessions. Digest 2.3
// ("notifications MUST relate to the originating request"; progress only
// with a progressToken) and 1.5 (exactly one stream per message).
func TestNoCrossTalk2026(t *testing.T) {
	t.Parallel()
	const calls, each = 6, 20
	step := newLockstep(calls)
	server := mcp.NewServer(&mcp.Implementation{Name: "crosstalk", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "lockstep"}, func(ctx context.Context, req *mcp.CallToolRequest, a progressArgs) (*mcp.CallToolResult, any, error) {
		tok := req.Params.GetProgressToken()
		for i := 1; i <= a.Count; i++ {
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(a.Count)}); err != nil {
				return nil, nil, err
			}
			if err := step.wait(ctx); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.Count)}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, nil)
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	url := srv.URL + "/mcp"

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	header := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "lockstep"}
	var wg sync.WaitGroup
	var (
		mu       sync.Mutex
		failures []error
	)
	fail := func(err error) {
		mu.Lock()
		failures = append(failures, err)
		mu.Unlock()
	}
	for c := range calls {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"lockstep","arguments":{"count":%d},"_meta":{"progressToken":"tok-%d","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, 100+c, each, c)
			resp := rawPost(ctx, t, url, header, body)
			defer resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || ct != "text/event-stream" {
				fail(fmt.Errorf("call %d: %d %s", c, resp.StatusCode, ct))
				return
			}
			r := sse.NewReader(bufio.NewReader(resp.Body))
			progress, answered := 0, false
			for {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					fail(fmt.Errorf("call %d: %v", c, err))
					return
				}
				if e.IsComment || len(e.Data) == 0 {
					continue
				}
				if e.HasID {
					fail(fmt.Errorf("call %d: a 2026-07-28 event with id %q", c, e.ID))
				}
				m, err := jsonrpc.Decode(e.Data)
				if err != nil {
					fail(fmt.Errorf("call %d: %v", c, err))
					return
				}
				if answered {
					fail(fmt.Errorf("call %d: %s %s after the response", c, m.Method, m.ID))
				}
				if m.IsResponse() {
					answered = true
					if m.ID != jsonrpc.Int64ID(int64(100+c)) || m.Error != nil {
						fail(fmt.Errorf("call %d got response %s %v", c, m.ID, m.Error))
					}
					continue
				}
				if m.Method != "notifications/progress" {
					fail(fmt.Errorf("call %d: unexpected %s", c, m.Method))
					continue
				}
				var p struct {
					Token    string  `json:"progressToken"`
					Progress float64 `json:"progress"`
				}
				_ = json.Unmarshal(m.Params, &p)
				if p.Token != fmt.Sprintf("tok-%d", c) {
					fail(fmt.Errorf("call %d received %s's progress %v", c, p.Token, p.Progress))
					continue
				}
				progress++
				if int(p.Progress) != progress {
					fail(fmt.Errorf("call %d: progress %v out of order", c, p.Progress))
				}
			}
			if progress != each || !answered {
				fail(fmt.Errorf("call %d got %d progress notifications (want %d), answered %v", c, progress, each, answered))
			}
		}(c)
	}
	wg.Wait()
	for _, err := range failures {
		t.Error(err)
	}
}
