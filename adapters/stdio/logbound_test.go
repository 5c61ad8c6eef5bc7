package stdio_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/internal/stdiotest"
)

// noisy serves stdiotest's Noisy child, a stdio server that misbehaves
// on request, with opts.
func noisy(t *testing.T, opts *stdio.Options) *fixture {
	t.Helper()
	return newFixtureOf(t, goChild(t, stdiotest.Noisy), opts, nil)
}

// atMostBurst fails unless the engine wrote at most logval.Burst lines of
// kind msg (the test takes less than logval.Every), and at least one.
func atMostBurst(t *testing.T, f *fixture, msg string) []logRecord {
	t.Helper()
	got := f.logs.find(msg, nil)
	if len(got) == 0 || len(got) > logval.Burst {
		t.Errorf("%d lines %q, want 1 to %d", len(got), msg, logval.Burst)
	}
	return got
}

// initializeAs POSTs a 2025-11-25 initialize from a client of this name,
// and returns the status and body of the answer.
func initializeAs(t *testing.T, url, name string) (int, string) {
	t.Helper()
	return postJSON(t, url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"`+name+`","version":"0"}}}`)
}

// TestGarbageFloodLogsBounded: issue 31 item 3. A child writing 20,000
// lines that are not JSON-RPC before an answer gets its calls served and
// 10 warnings, with the line quoted; it got one warning per line before.
func TestGarbageFloodLogsBounded(t *testing.T) {
	t.Parallel()
	f := noisy(t, nil)
	cs := connect(t, f.url, httptransport.Version20260728, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "garbage", Arguments: map[string]any{"lines": 20000}})
	if err != nil || text(res) != "done" {
		t.Fatalf("the call after the garbage: %v %v", res, err)
	}
	got := atMostBurst(t, f, "stdio: the child wrote something that is not a JSON-RPC message")
	if len(got) > 0 && got[0].attrs["line"] != `"this is not JSON-RPC 0"` {
		t.Errorf("line %s, want it quoted", got[0].attrs["line"])
	}
}

// TestRefusedSessionsLogBounded: 50 sessions refused a child of their own
// past MaxSessionChildren write 10 warnings, not 50.
func TestRefusedSessionsLogBounded(t *testing.T) {
	t.Parallel()
	f := noisy(t, &stdio.Options{ChildPerSession: true, MaxSessionChildren: 1, StopTimeout: 300 * time.Millisecond})
	connect(t, f.url, httptransport.Version20251125, nil) // takes the one child
	for i := range 50 {
		if status, body := initializeAs(t, f.url, "t"); status != http.StatusOK || !strings.Contains(body, "too many sessions") {
			t.Fatalf("initialize %d past MaxSessionChildren: %d %s, want refused", i, status, body)
		}
	}
	atMostBurst(t, f, "stdio: a session was refused a child of its own: MaxSessionChildren are running")
}

// TestChildFailuresLogBounded: 15 sessions whose children fail to start,
// and 15 whose children crash and are restarted, write at most 10 lines
// of each kind.
func TestChildFailuresLogBounded(t *testing.T) {
	t.Parallel()
	const sessions = 15
	f := noisy(t, &stdio.Options{ChildPerSession: true, StopTimeout: 300 * time.Millisecond, MinBackoff: time.Millisecond})
	for i := range sessions {
		if status, body := initializeAs(t, f.url, "exit-on-initialize"); status != http.StatusOK || !strings.Contains(body, `"error"`) {
			t.Fatalf("initialize %d of a child that exits: %d %s, want an error", i, status, body)
		}
	}
	atMostBurst(t, f, "stdio: starting the MCP server failed")

	var wg sync.WaitGroup
	for range sessions {
		cs := connect(t, f.url, httptransport.Version20251125, nil)
		wg.Go(func() {
			if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "exit"}); err == nil {
				t.Error("a call whose child exited succeeded")
			}
			// Served by the restarted child: the restart was logged (or
			// held back) by now.
			if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "garbage"}); err != nil || text(res) != "done" {
				t.Errorf("the call after the restart: %v %v", res, err)
			}
		})
	}
	wg.Wait()
	atMostBurst(t, f, "stdio: MCP server ended; restarting")
	atMostBurst(t, f, "stdio: MCP server started")
}

// TestRequestOutlivingItsCall: a session child's request that went out on
// the stream of the one call in flight, which then ended before the
// client answered, is answered with an error. The transport has nowhere
// to take the client's late answer (the call's stream is gone), and the
// child once waited for it forever.
func TestRequestOutlivingItsCall(t *testing.T) {
	t.Parallel()
	f := noisy(t, &stdio.Options{ChildPerSession: true, StopTimeout: 300 * time.Millisecond})
	asked := make(chan struct{})
	release := make(chan struct{})
	cs := connect(t, f.url, httptransport.Version20251125, &mcp.ClientOptions{CreateMessageHandler: func(ctx context.Context, _ *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		close(asked)
		select { // answers once the call is over
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "late"}}, nil
	}})
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask"}); err != nil || text(res) != "done" {
		t.Fatalf("ask: %v %v", res, err)
	}
	<-asked
	close(release)
	rec := f.logs.wait(t, "stdio: child stderr", func(a map[string]string) bool { return strings.Contains(a["stderr"], "noisy: answered") })
	if !strings.Contains(rec.attrs["stderr"], `error`) || !strings.Contains(rec.attrs["stderr"], "ended") {
		t.Errorf("the child's request was answered %s, want an error saying its call ended", rec.attrs["stderr"])
	}
}
