package stdio_test

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/stdiotest"
)

// TestChildKilledMidCall kills the shared child while a call runs on it:
// the call fails with a JSON-RPC error that says so, the engine starts a
// new child, and the next call is served by it.
func TestChildKilledMidCall(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		for _, version := range []string{httptransport.Version20260728, httptransport.Version20251125} {
			t.Run(version, func(t *testing.T) {
				f := newFixture(t, srv, nil)
				progress := make(chan struct{}, 8)
				cs := connect(t, f.url, version, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
					progress <- struct{}{}
				}})
				errc := make(chan error, 1)
				go func() {
					params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 30, "steps": 300}}
					params.SetProgressToken(1)
					_, err := cs.CallTool(context.Background(), params)
					errc <- err
				}()
				<-progress
				old := f.engine.Pid()
				if err := syscall.Kill(old, syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				err := <-errc
				if err == nil || !strings.Contains(err.Error(), "ended while serving the call") {
					t.Fatalf("the call on the killed child returned %v, want the engine's error", err)
				}
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "again"}})
				if err != nil || !strings.Contains(text(res), "again") {
					t.Fatalf("the call after the restart: %v %v", res, err)
				}
				if now := f.engine.Pid(); now == old || now == 0 {
					t.Errorf("pid %d after the restart, was %d", now, old)
				}
			})
		}
	})
}

// TestLineBound stops a child that writes a line past MaxLineBytes: the
// call whose answer it was fails with an error naming the bound, and the
// restarted child serves the next call.
func TestLineBound(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, &stdio.Options{MaxLineBytes: 64 << 10})
		cs := connect(t, f.url, httptransport.Version20251125, nil)
		ctx := context.Background()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": strings.Repeat("x", 100<<10)}})
		if err == nil || !strings.Contains(err.Error(), "over 65536 bytes") {
			t.Fatalf("an answer past the line bound gave %v, want the engine's error", err)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "small"}})
		if err != nil || !strings.Contains(text(res), "small") {
			t.Fatalf("the call after the restart: %v %v", res, err)
		}
	})
}

// TestStderrLogged checks that the child's stderr reaches the logger, each
// line cut at StderrLineBytes.
func TestStderrLogged(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, &stdio.Options{StderrLineBytes: 8})
		rec := f.logs.wait(t, "stdio: child stderr", nil)
		// Both servers' first line: "Starting ..."
		if rec.attrs["stderr"] != `"Starting"` || rec.attrs["truncated"] != "true" {
			t.Errorf("stderr logged as %v, want the first 8 bytes, marked truncated", rec.attrs)
		}
	})
}

// TestStderrRateBound: a child that floods its stderr gets at most
// StderrBytesPerSecond of it logged; the lines past that are counted in
// one record.
func TestStderrRateBound(t *testing.T) {
	t.Parallel()
	l := newLogs()
	const lines, size, rate = 5000, 100, 10 << 10
	flood := goChild(t, stdiotest.StderrFlood, itoa(lines), itoa(size))
	_, err := stdio.New(context.Background(), flood, &stdio.Options{Logger: slog.New(l), StderrBytesPerSecond: rate})
	if err == nil {
		t.Fatal("New succeeded with a child that exits")
	}
	logged := len(l.find("stdio: child stderr", nil))
	skipped := 0
	for _, r := range l.find("stdio: child stderr lines dropped past the rate bound", nil) {
		n, _ := strconv.Atoi(r.attrs["lines"])
		skipped += n
	}
	// The flood is written well within a second or two, so most of it
	// is dropped; every line is either logged or counted.
	if logged == 0 || logged*size > 3*rate {
		t.Errorf("%d lines of %d bytes logged at a bound of %d bytes a second", logged, size, rate)
	}
	if logged+skipped < lines {
		t.Errorf("%d lines logged and %d counted, of %d written", logged, skipped, lines)
	}
}
