package stdio_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
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
	"github.com/mcpmount/mcpmount/internal/stdiotest"
)

func TestMain(m *testing.M) {
	stdiotest.MaybeChild() // the Go servers the tests start are this binary
	goleak.VerifyTestMain(m)
}

// server is a stdio MCP server the tests serve through the engine: the Go
// stand-in for the reference everything server (a go-sdk server, which
// this test binary becomes), or the reference server itself, which needs
// Node and npm ci (the tests skip it without them, unless
// MCPMOUNT_REQUIRE_NODE=1, as in CI).
type server struct {
	name    string // the subtest's
	info    string // its serverInfo name
	command func(t testing.TB) stdio.Command
	// cancelSeen reports whether the params (quoted) of a progress
	// notification the child sent for no call waiting show that it knew
	// its call was cancelled.
	cancelSeen func(params string) bool
	// answersCancelled: the child answers a request it was told is
	// cancelled (go-sdk does; the reference server's SDK does not).
	answersCancelled bool
}

var servers = []server{
	{name: "go", info: stdiotest.Name, command: goServer, answersCancelled: true,
		cancelSeen: func(p string) bool { return strings.Contains(p, stdiotest.Cancelled) }},
	{name: "everything", info: "mcp-servers/everything", command: everything,
		cancelSeen: func(p string) bool { return strings.Contains(p, `\"progress\":3`) }},
}

// eachServer runs f against each server, in parallel subtests of a
// parallel test.
func eachServer(t *testing.T, f func(t *testing.T, srv server)) {
	t.Parallel()
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			f(t, srv)
		})
	}
}

// goServer is the Go server's command: this test binary.
func goServer(t testing.TB) stdio.Command { return goChild(t, stdiotest.Everything) }

// goChild is the command of one of stdiotest's children.
func goChild(t testing.TB, mode string, args ...string) stdio.Command {
	argv := stdiotest.Command(t, mode, args...)
	return stdio.Command{Path: argv[0], Args: argv[1:]}
}

// everything is the reference server's command.
func everything(t testing.TB) stdio.Command {
	argv := stdiotest.ReferenceServer(t, "../..")
	return stdio.Command{Path: argv[0], Args: argv[1:]}
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

// fixture is a server behind an engine and a handler on loopback.
type fixture struct {
	url    string
	engine *stdio.Engine
	logs   *logs
}

func newFixture(t *testing.T, srv server, opts *stdio.Options) *fixture {
	t.Helper()
	return newFixtureWith(t, srv, opts, nil)
}

// newFixtureWith is newFixture with the transport's options.
func newFixtureWith(t *testing.T, srv server, opts *stdio.Options, topts *httptransport.Options) *fixture {
	t.Helper()
	return newFixtureOf(t, srv.command(t), opts, topts)
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
	hs := httptest.NewServer(h)
	f.url = hs.URL + "/mcp"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		hs.Close()
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
