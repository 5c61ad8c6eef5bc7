package httptransport_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// statusRecorder is the writer wrapper of many metrics and access-log
// middlewares: it embeds http.ResponseWriter to record the status, and has
// neither Flush nor Unwrap.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) { s.status = code; s.ResponseWriter.WriteHeader(code) }

// TestHeldStreamsRefusedWithoutFlush: behind a middleware whose writer
// cannot flush, a held stream would never reach its client (not even its
// status line: a 2024-11-05 client waited for its endpoint event until it
// gave up, and the server said nothing). Each kind of held stream is now
// refused (500 and -32603; a 2025-era GET, which gets a stream or 405, 405
// with Allow), the cause is logged once, and calls, whose answers end
// their responses, are still served.
func TestHeldStreamsRefusedWithoutFlush(t *testing.T) {
	t.Parallel()
	var logs testutil.Buffer
	s := httptransport.NewTestServerWith(t, &httptransport.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(&statusRecorder{ResponseWriter: w}, r)
		})
	})
	sid := s.Initialize(httptransport.Version20251125)
	sse := http.Header{"Accept": {"text/event-stream"}}
	sessionGet := httptransport.SessionHeaders(sid, httptransport.Version20251125)
	sessionGet.Set("Accept", "text/event-stream")
	for _, tc := range []struct {
		name   string
		method string
		header http.Header
		body   string
		status int
		code   int64
	}{
		{"2024-11-05 event stream", "GET", sse, "", http.StatusInternalServerError, jsonrpc.CodeInternalError},
		// A 2025-era GET gets an event stream or 405 (spec 2025-11-25 basic/transports#listening-for-messages-from-the-server).
		{"2025-11-25 session GET", "GET", sessionGet, "", http.StatusMethodNotAllowed, jsonrpc.CodeServerError},
		{"2026-07-28 listen", "POST", httptransport.ModernHeaders("subscriptions/listen"), `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + httptransport.Meta + `}}`, http.StatusInternalServerError, jsonrpc.CodeInternalError},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp := s.Open(ctx, tc.method, tc.header, tc.body) // fails at 5 s when nothing comes
		raw, _ := io.ReadAll(resp.Body)
		cancel()
		body := string(raw)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: %d %q, want %d", tc.name, resp.StatusCode, body, tc.status)
			continue
		}
		if _, code, _ := httptransport.RPCError(t, body); code != tc.code {
			t.Errorf("%s: %s, want %d", tc.name, body, tc.code)
		}
		if tc.status == http.StatusMethodNotAllowed && resp.Header.Get("Allow") == "" {
			t.Errorf("%s: 405 without Allow", tc.name)
		}
	}
	if n := strings.Count(logs.String(), "cannot flush"); n != 1 {
		t.Errorf("the cause logged %d times, want once:\n%s", n, logs.String())
	}

	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "echo")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still served"},`+httptransport.Meta+`}}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "still served") {
		t.Errorf("a call behind the same writer: %d %s", resp.StatusCode, body)
	}
}

// TestCallStreamWithoutFlushLogged: a call's SSE stream behind a writer
// that cannot flush reaches the client whole when the call ends; the
// cause is logged (once), as nothing arrives until then.
func TestCallStreamWithoutFlushLogged(t *testing.T) {
	t.Parallel()
	var logs testutil.Buffer
	s := httptransport.NewTestServerWith(t, &httptransport.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			next.ServeHTTP(&statusRecorder{ResponseWriter: w}, r)
		})
	})
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "progress")
	for range 2 {
		resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":"p",`+httptransport.Meta[len(`"_meta":{`):]+`}}`)
		if resp.StatusCode != 200 || strings.Count(body, "notifications/progress") != 2 || !strings.Contains(body, `"result"`) {
			t.Fatalf("progress call behind a non-flushing writer: %d %s", resp.StatusCode, body)
		}
	}
	if n := strings.Count(logs.String(), "cannot flush"); n != 1 {
		t.Errorf("the cause logged %d times, want once:\n%s", n, logs.String())
	}
}
