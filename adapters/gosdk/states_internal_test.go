package gosdk

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestStatesEndWithSessions: the engine's cache of decoded session state
// holds nothing of a session that has ended, also when the SDK gave up on
// the session's connection before (KeepAlive pings the client never
// answered: it opened no GET stream) and calls came after that.
func TestStatesEndWithSessions(t *testing.T) {
	t.Parallel()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	server := mcp.NewServer(&mcp.Implementation{Name: "states", Version: "1"}, &mcp.ServerOptions{KeepAlive: 20 * time.Millisecond, KeepAliveFailureThreshold: 1, Logger: quiet})
	e := NewEngine(server, &Options{Logger: quiet})
	h := httptransport.New(e, &httptransport.Options{Logger: quiet})
	srv := httptest.NewServer(h)
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
		srv.Close()
		_ = e.Close()
	}()
	post := func(sid, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", httptransport.Version20251125)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	cached := func() (n int) {
		e.states.Range(func(any, any) bool { n++; return true })
		return n
	}
	waitFor := func(what string, f func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !f(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("never: %s", what)
			}
		}
	}
	for i := range 5 {
		sid := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`).Header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatalf("session %d: no id", i)
		}
		post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		waitFor("the SDK gives up on the session's connection", func() bool { l := e.link(sid); return l != nil && l.connected() == nil })
		if resp := post(sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != 200 {
			t.Fatalf("session %d: tools/list: %d", i, resp.StatusCode)
		}
		if cached() == 0 {
			t.Fatalf("session %d: its state is not cached while it is open", i)
		}
		req, _ := http.NewRequest("DELETE", srv.URL, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", httptransport.Version20251125)
		resp, err := srv.Client().Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("session %d: DELETE: %v %v", i, resp, err)
		}
		resp.Body.Close()
	}
	waitFor("no ended session's state cached", func() bool { return cached() == 0 })
}
