package httptransport

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// slowAnswerEngine answers the tools "late-404" and "late-cap" with -32601 and
// -32021 after delay, and "late-ok" with a result; everything else goes to
// the test engine.
type slowAnswerEngine struct {
	*TestEngine
	delay time.Duration
}

func (e slowAnswerEngine) Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(call.Request.Params, &p)
	if call.Request.Method != "tools/call" || !strings.HasPrefix(p.Name, "late-") {
		return e.TestEngine.Serve(ctx, call)
	}
	select {
	case <-time.After(e.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	switch p.Name {
	case "late-404":
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found")
	case "late-cap":
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMissingRequiredClientCapability, Message: "elicitation required", Data: json.RawMessage(`{"requiredCapabilities":{"elicitation":{}}}`)}
	}
	return result(call.Request.ID, map[string]any{"text": "late"}), nil
}

func slowAnswerCall(name string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` + Meta + `}}`
}

// TestModernErrorKeepsStatusBeforeFlush: a 2026-07-28 error the engine
// returns before the header flush delay (1 s by default) goes out with the
// status the spec gives it (spec 2026-07-28 basic/transports/streamable-http; spec 2026-07-28 basic#error-codes): 404 for -32601, 400 for
// -32021.
func TestModernErrorKeepsStatusBeforeFlush(t *testing.T) {
	t.Parallel()
	te := NewTestEngine()
	s := StartTestServer(t, te, nil, nil, false)
	s.Handler.engine = slowAnswerEngine{te, 150 * time.Millisecond}
	for _, tc := range []struct {
		tool   string
		status int
		code   int64
	}{
		{"late-404", http.StatusNotFound, jsonrpc.CodeMethodNotFound},
		{"late-cap", http.StatusBadRequest, jsonrpc.CodeMissingRequiredClientCapability},
	} {
		h := ModernHeaders("tools/call")
		h.Set("Mcp-Name", tc.tool)
		resp, body := s.Do("POST", h, slowAnswerCall(tc.tool))
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %s, want %d application/json; body %q", tc.tool, resp.StatusCode, resp.Header.Get("Content-Type"), tc.status, body)
			continue
		}
		if _, code, _ := RPCError(t, body); code != tc.code {
			t.Errorf("%s: code %d, want %d", tc.tool, code, tc.code)
		}
	}
}

// TestModernLateErrorIsSSEEvent: a 2026-07-28 call silent past the header
// flush delay has its SSE stream opened (so that first-byte timeouts do not
// drop it), and an error the engine returns after that is an SSE event
// under 200. (The default delay is 1 s; the test shortens it.)
func TestModernLateErrorIsSSEEvent(t *testing.T) {
	t.Parallel()
	te := NewTestEngine()
	s := StartTestServer(t, te, nil, nil, false)
	s.Handler.engine = slowAnswerEngine{te, 150 * time.Millisecond}
	s.Handler.out.HeaderFlushDelay = 20 * time.Millisecond
	h := ModernHeaders("tools/call")
	h.Set("Mcp-Name", "late-404")
	resp, body := s.Do("POST", h, slowAnswerCall("late-404"))
	WantSSEError(t, resp, body, http.StatusOK, jsonrpc.CodeMethodNotFound)
}

// WantSSEError checks that resp is an SSE stream with status carrying one
// message, an error with code.
func WantSSEError(t *testing.T, resp *http.Response, body string, status int, code int64) {
	t.Helper()
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %s, want %d text/event-stream; body %q", resp.StatusCode, resp.Header.Get("Content-Type"), status, body)
	}
	msgs := Messages(t, Events(t, body))
	if len(msgs) != 1 || msgs[0].Error == nil || msgs[0].Error.Code != code {
		t.Fatalf("events %q, want one error %d", body, code)
	}
}

// TestModernCallOutlivesServerWriteTimeout: a 2026-07-28 call silent for
// longer than the server's WriteTimeout still gets its answer, whether the
// client could take SSE (its stream opened at the header flush delay, the
// answer an event on it) or only JSON (the delay lifts the server's
// timeout, as opening the stream does).
func TestModernCallOutlivesServerWriteTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		for _, tc := range []struct {
			h2     bool
			accept string
		}{
			{false, "application/json, text/event-stream"},
			{true, "application/json, text/event-stream"},
			{false, "application/json"},
			{true, "application/json"},
		} {
			h2 := tc.h2
			s := newLiftServer(t, 600*time.Millisecond, 300*time.Millisecond, 50*time.Millisecond, h2)
			hdr := ModernHeaders("tools/call")
			hdr.Set("Mcp-Name", "late-ok")
			hdr.Set("Accept", tc.accept)
			resp, body := s.Do("POST", hdr, slowAnswerCall("late-ok"))
			want := "text/event-stream"
			if tc.accept == "application/json" {
				want = "application/json"
			}
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != want || !strings.Contains(body, `"text":"late"`) {
				t.Fatalf("HTTP/2 %v, Accept %q: %d %s %q, want the result as %s", h2, tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), body, want)
			}
		}
	})
}
