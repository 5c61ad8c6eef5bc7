package httptransport_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// quickstartServer serves the test engine with opts as the README's
// quickstarts do, on an http.Server whose only timeout is
// ReadHeaderTimeout, over HTTP/1.1 or, with TLS, HTTP/2.
func quickstartServer(t *testing.T, opts *httptransport.Options, h2 bool) *httptransport.TestServer {
	t.Helper()
	e := httptransport.NewTestEngine()
	return httptransport.ServeTestHandler(t, httptransport.New(e, opts), e, nil, func(srv *http.Server) {
		srv.ReadHeaderTimeout = 10 * time.Second
	}, h2)
}

var protocols = map[bool]string{false: "HTTP/1.1", true: "HTTP/2"}

// trickle writes the start of a request body into w, then a byte every
// 20 ms, for ever: a client sending its body slower than any deadline. It
// returns once a write fails (the test closes the pipe).
func trickle(w *io.PipeWriter) {
	if _, err := io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`); err != nil {
		return
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if _, err := io.WriteString(w, "x"); err != nil {
			return
		}
	}
}

// TestSlowBodyEndsAtBodyTimeout: issue 31 item 4. On a server configured
// as the quickstarts are (ReadHeaderTimeout only), a POST whose body
// trickles in is answered, once Options.BodyTimeout has passed, with 408
// and a -32600 JSON-RPC error, over HTTP/1.1 (which then closes the
// connection) and HTTP/2; it held its goroutine for ever before.
func TestSlowBodyEndsAtBodyTimeout(t *testing.T) {
	t.Parallel()
	for _, h2 := range []bool{false, true} {
		t.Run(protocols[h2], func(t *testing.T) {
			t.Parallel()
			s := quickstartServer(t, &httptransport.Options{BodyTimeout: 200 * time.Millisecond}, h2)
			pr, pw := io.Pipe()
			defer pw.Close()
			go trickle(pw)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a safety net, far past the deadline
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, pr)
			if err != nil {
				t.Fatal(err)
			}
			req.Header = httptransport.SessionHeaders("", httptransport.Version20250326)
			resp, err := s.Client.Do(req)
			if err != nil {
				t.Fatalf("the slow POST got no answer: %v", err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			if resp.StatusCode != http.StatusRequestTimeout {
				t.Fatalf("status %d, want 408: %s", resp.StatusCode, body)
			}
			var m struct{ Error *jsonrpc.Error }
			if err := json.Unmarshal(body, &m); err != nil || m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest {
				t.Errorf("body %s, want a -32600 JSON-RPC error", body)
			}
			if !h2 && !resp.Close {
				t.Error("HTTP/1.1: the connection, with the rest of the body on its way, is kept open")
			}
		})
	}
}

// comments reads r up to and including its nth comment (keep-alive) line
// in a row after the last event, failing on an event or the end of the
// stream: what was open stays open with nothing to say.
func comments(t *testing.T, r *httptransport.SSEReader, n int) {
	t.Helper()
	for seen := 0; seen < n; {
		ev, err := r.R.Next()
		if err != nil {
			t.Fatalf("the stream ended after %d keep-alives: %v", seen, err)
		}
		if !ev.IsComment {
			t.Fatalf("an event where keep-alives were due: %q", ev.Data)
		}
		seen++
	}
}

// TestBodyTimeoutSparesStreams: the body deadline ends with the body. A
// POST whose call outlives it many times over, and a session's GET
// stream, keep going on a quickstart server, over HTTP/1.1 and HTTP/2:
// keep-alives flow past the deadline, and what the server sends then
// arrives.
func TestBodyTimeoutSparesStreams(t *testing.T) {
	t.Parallel()
	const deadline = 100 * time.Millisecond
	for _, h2 := range []bool{false, true} {
		t.Run(protocols[h2], func(t *testing.T) {
			t.Parallel()
			s := quickstartServer(t, &httptransport.Options{BodyTimeout: deadline, KeepAlive: deadline}, h2)
			s.Engine.Gate = make(chan struct{})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			h := httptransport.ModernHeaders("tools/call")
			h.Set("Mcp-Name", "progress")
			h.Set("Accept", "text/event-stream")
			resp := s.Open(ctx, http.MethodPost, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":"p",`+httptransport.Meta[len(`"_meta":{`):]+`}}`)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("call: %d", resp.StatusCode)
			}
			call := httptransport.NewSSEReader(t, resp.Body)
			if m := call.NextMessage(); m.Method != "notifications/progress" {
				t.Fatalf("first message %s, want progress", m.Method)
			}
			comments(t, call, 5) // five keep-alive periods, each the body deadline
			s.Engine.Gate <- struct{}{}
			if m := call.NextMessage(); m.Method != "notifications/progress" {
				t.Fatalf("after the keep-alives: %s, want the second progress", m.Method)
			}
			if m := call.NextMessage(); m.Error != nil || !strings.Contains(string(m.Result), `"2"`) {
				t.Fatalf("the call's answer: %+v", m)
			}

			sid := s.Initialize(httptransport.Version20251125)
			get := s.Open(ctx, http.MethodGet, httptransport.GetHeaders(sid, httptransport.Version20251125), "")
			if get.StatusCode != http.StatusOK {
				t.Fatalf("GET stream: %d", get.StatusCode)
			}
			stream := httptransport.NewSSEReader(t, get.Body)
			comments(t, stream, 5)
			if err := s.Engine.SessionRequest(sid, jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":"late"}`))); err != nil {
				t.Fatal(err)
			}
			if m := stream.NextMessage(); m.Method != "notifications/message" {
				t.Fatalf("GET stream after the keep-alives: %s", m.Method)
			}
		})
	}
}
