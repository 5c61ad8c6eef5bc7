package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// childEnv, set in its environment, makes this test binary the stdio MCP
// server of the tests (serveChild) instead of running them.
const childEnv = "MCPMOUNT_TEST_CHILD"

// serveChild serves a go-sdk MCP server over stdin and stdout. Its tool
// block reports progress once it runs, then waits to be cancelled.
func serveChild() {
	server := mcp.NewServer(&mcp.Implementation{Name: "test-child", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1})
		}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
}

// watchBuffer is a syncBuffer whose seen channel is closed once what was
// written contains want.
type watchBuffer struct {
	syncBuffer
	want string
	seen chan struct{}
	once sync.Once
}

func newWatchBuffer(want string) *watchBuffer {
	return &watchBuffer{want: want, seen: make(chan struct{})}
}

func (w *watchBuffer) Write(p []byte) (int, error) {
	n, err := w.syncBuffer.Write(p)
	if strings.Contains(w.syncBuffer.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

// checkHealth GETs base/healthz and wants status and body.
func checkHealth(t *testing.T, base string, status int, body string) {
	t.Helper()
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status || string(got) != body {
		t.Errorf("GET /healthz: %s %q, want %d %q", resp.Status, got, status, body)
	}
}

// TestHealthz serves a stdio child behind a token: /healthz answers 200
// without the token while the command serves, and 503 from the moment it
// begins to shut down, while a call in flight still holds it open.
func TestHealthz(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	logs := newWatchBuffer("mcpmount: shutting down")
	done := make(chan error, 1)
	args := []string{"stdio", "--addr", "127.0.0.1:0", "--token-file", tokenFile, "--shutdown-timeout", "1m",
		"--env", childEnv + "=1", "--", os.Args[0]}
	go func() {
		done <- run(ctx, args, outW, logs)
		outW.Close()
	}()
	url := waitListening(t, outR)
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	base := strings.TrimSuffix(url, "/mcp")
	checkHealth(t, base, http.StatusOK, "ok\n")

	running := make(chan struct{})
	var once sync.Once
	client := mcp.NewClient(&mcp.Implementation{Name: "cmd-test", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { once.Do(func() { close(running) }) },
	})
	cctx, stopCall := context.WithCancel(context.Background())
	defer stopCall()
	cs, err := client.Connect(cctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{"s3cret"}}, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	callErr := make(chan error, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "block"}
		params.SetProgressToken("p")
		_, err := cs.CallTool(cctx, params)
		callErr <- err
	}()
	<-running

	cancel() // as SIGTERM does
	<-logs.seen
	checkHealth(t, base, http.StatusServiceUnavailable, "shutting down\n")
	stopCall() // the call ends, and with it the shutdown
	<-callErr
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	assertGone(t, logs.String())
}
