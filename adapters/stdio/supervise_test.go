package stdio_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/stdiotest"
)

// TestStartFailures: a command that cannot start, and one that exits
// before initializing, make New fail with an error that says so.
func TestStartFailures(t *testing.T) {
	t.Parallel()
	logger := slog.New(newLogs())
	ctx := context.Background()
	if _, err := stdio.New(ctx, stdio.Command{Path: filepath.Join(t.TempDir(), "missing")}, &stdio.Options{Logger: logger}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a missing program: %v", err)
	}
	_, err := stdio.New(ctx, goChild(t, stdiotest.Exit, "3"), &stdio.Options{Logger: logger})
	if err == nil || !strings.Contains(err.Error(), "initialize") {
		t.Errorf("a child that exits at once: %v", err)
	}
}

// TestStopEscalates: a child that ignores the end of its stdin and
// SIGTERM is sent SIGTERM (it says it got it) and then SIGKILL by Close,
// and is gone after. Its line that is not JSON-RPC is logged and the
// calls go on.
func TestStopEscalates(t *testing.T) {
	t.Parallel()
	l := newLogs()
	e, err := stdio.New(context.Background(), goChild(t, stdiotest.Stubborn), &stdio.Options{Logger: slog.New(l), StopTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	pid := e.Pid()
	h := httptransport.New(e, nil)
	cs := connect(t, serve(t, h), httptransport.Version20250618, nil)
	if _, err := cs.ListTools(context.Background(), nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	if got := l.find("stdio: the child wrote something that is not a JSON-RPC message", nil); len(got) == 0 {
		t.Error("the child's line that is not JSON-RPC was not logged")
	}
	cs.Close()
	if err := h.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if got := l.find("stdio: child stderr", func(a map[string]string) bool { return strings.Contains(a["stderr"], "got SIGTERM") }); len(got) == 0 {
		t.Error("the child was not sent SIGTERM")
	}
	assertGone(t, itoa(pid))
}

// TestRemovedMethodsModern: methods 2026-07-28 removed, and those of the
// tasks capability the engine does not offer, get -32601 (404) rather
// than reaching the shared child.
func TestRemovedMethodsModern(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, nil)
		cs := connect(t, f.url, httptransport.Version20260728, nil)
		if cs.InitializeResult().Capabilities.Logging != nil {
			t.Error("server/discover offers logging, whose messages the shared child cannot route")
		}
		for _, m := range []struct{ method, params string }{
			{"resources/subscribe", `"uri":"` + docURI + `"`},
			{"ping", ""},
			{"tasks/list", ""},
		} {
			status, body := postModern(t, f.url, m.method, m.params)
			if status != http.StatusNotFound || !strings.Contains(body, "-32601") {
				t.Errorf("%s at 2026-07-28: %d %s, want 404 and -32601", m.method, status, body)
			}
		}
	})
}

// postModern POSTs a 2026-07-28 request with its headers and _meta.
func postModern(t *testing.T, url, method, params string) (int, string) {
	t.Helper()
	if params != "" {
		params += ","
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"}}}}`
	return postJSON(t, url, body, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
}

// postJSON POSTs body as JSON, with the header names and values of kv,
// and returns the answer's status and body.
func postJSON(t *testing.T, url, body string, kv ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCloseBeforeShutdown: Close returns while sessions are still open
// (the handler not shut down yet), stops their children too, and the
// calls that come after it fail rather than hang.
func TestCloseBeforeShutdown(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		l := newLogs()
		e, err := stdio.New(context.Background(), srv.command(t), &stdio.Options{Logger: slog.New(l), ChildPerSession: true, StopTimeout: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		h := httptransport.New(e, nil)
		url := serve(t, h)
		cs := connect(t, url, httptransport.Version20251125, nil)
		if _, err := cs.ListTools(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := cs.ListTools(ctx, nil); err == nil {
			t.Error("a call after Close was served")
		}
		cs.Close()
		if err := h.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}
		started := l.find("stdio: MCP server started", nil)
		if len(started) != 2 {
			t.Fatalf("%d children started, want the shared one and the session's", len(started))
		}
		for _, r := range started {
			assertGone(t, r.attrs["pid"])
		}
	})
}
