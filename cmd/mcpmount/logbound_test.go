package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/internal/stdiotest"
)

// kindCounter is a log sink that counts the lines of each kind (a text
// handler's msg) and the bytes written, and keeps none of them.
type kindCounter struct {
	mu    sync.Mutex
	kinds map[string]int
	lines int
	bytes int
}

var msgRE = regexp.MustCompile(`(?:^| )msg=("(?:[^"\\]|\\.)*"|\S+)`)

func (k *kindCounter) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.bytes += len(p)
	for line := range bytes.SplitSeq(bytes.TrimRight(p, "\n"), []byte("\n")) {
		k.lines++
		kind := "?"
		if m := msgRE.FindSubmatch(line); m != nil {
			kind = string(m[1])
		}
		k.kinds[kind]++
	}
	return len(p), nil
}

// initialize POSTs a 2025-11-25 initialize and returns the answer's body.
func initialize(url string) (string, error) {
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"flood","version":"0"}}}`))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// refuseSessions sends n initialize requests, 8 at a time, each of which
// must be refused a child of its own.
func refuseSessions(t *testing.T, url string, n int) {
	t.Helper()
	work := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range work {
				body, err := initialize(url)
				if err != nil || !strings.Contains(body, "too many sessions") {
					t.Errorf("initialize %d past --max-session-children: %q %v, want refused", i, body, err)
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
}

// TestStdioLogFloodBounded: issue 31 item 3, through the command. With a
// child per session and room for one, a child writing 200,000 lines that
// are not JSON-RPC and 2,000 sessions refused a child write at most the
// promised 10 lines a minute of each kind; they wrote 200,002 and 1,968
// lines before.
func TestStdioLogFloodBounded(t *testing.T) {
	t.Parallel()
	logs := &kindCounter{kinds: map[string]int{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	args := []string{"stdio", "--addr", "127.0.0.1:0", "--child-per-session", "--max-session-children", "1", "--stop-timeout", "300ms", "--"}
	args = append(args, stdiotest.Command(t, stdiotest.Noisy)...)
	start := time.Now()
	go func() {
		done <- run(ctx, args, outW, logs)
		outW.Close()
	}()
	url := waitListening(t, outR)
	go func() { _, _ = io.Copy(io.Discard, outR) }()

	cctx, ccancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer ccancel()
	shared, err := connect(cctx, url, "2026-07-28", "")
	if err != nil {
		t.Fatalf("connect at 2026-07-28: %v", err)
	}
	defer shared.Close()
	res, err := shared.CallTool(cctx, &mcp.CallToolParams{Name: "garbage", Arguments: map[string]any{"lines": 200000}})
	if err != nil || res.IsError {
		t.Fatalf("the call through 200,000 garbage lines: %v %v", res, err)
	}
	own, err := connect(cctx, url, "2025-11-25", "") // takes the one session child
	if err != nil {
		t.Fatalf("connect at 2025-11-25: %v", err)
	}
	defer own.Close()
	refuseSessions(t, url, 2000)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}

	periods := 1 + int(time.Since(start)/logval.Every) // the limit's windows the test spanned
	logs.mu.Lock()
	defer logs.mu.Unlock()
	for kind, n := range logs.kinds {
		if n > logval.Burst*periods {
			t.Errorf("%d lines of kind %s, want at most %d", n, kind, logval.Burst*periods)
		}
	}
	for _, kind := range []string{`"stdio: the child wrote something that is not a JSON-RPC message"`, `"stdio: a session was refused a child of its own: MaxSessionChildren are running"`} {
		if logs.kinds[kind] == 0 {
			t.Errorf("no line of kind %s", kind)
		}
	}
	t.Logf("%d log lines, %d bytes: %s", logs.lines, logs.bytes, fmt.Sprint(logs.kinds))
}
