package httptransport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestCancelledCallPOSTIsReadable: spec 2025-11-25 basic/transports#sending-messages-to-the-server, "Body holds a request:
// answer with Content-Type: text/event-stream (SSE) or application/json". A
// session call cancelled (notifications/cancelled, or DELETE of its
// session) while its POST waits and its stream has not opened gets an SSE
// stream with no event, or, from a client that takes only JSON, a -32800
// error; it once got a bare 200 with no Content-Type, which clients reject.
func TestCancelledCallPOSTIsReadable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ how, accept, ct string }{
		{"notifications/cancelled", "application/json, text/event-stream", "text/event-stream"},
		{"DELETE", "application/json, text/event-stream", "text/event-stream"},
		{"notifications/cancelled", "application/json", "application/json"},
		{"DELETE", "application/json", "application/json"},
	} {
		how := tc.how
		t.Run(strings.ReplaceAll(how, "/", "_")+" "+tc.ct, func(t *testing.T) {
			s := NewTestServer(t, &Options{HeaderFlushDelay: 5 * time.Second})
			sid := s.Initialize(Version20251125)
			h := SessionHeaders(sid, Version20251125)
			post := h.Clone()
			post.Set("Accept", tc.accept)
			type answer struct {
				status int
				ct     string
				body   string
				err    error
			}
			out := make(chan answer, 1)
			go func() {
				req, _ := http.NewRequest("POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"slow","arguments":{"text":"a"}}}`))
				req.Header = post
				resp, err := s.Client.Do(req)
				if err != nil {
					out <- answer{err: err}
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				out <- answer{resp.StatusCode, resp.Header.Get("Content-Type"), string(b), nil}
			}()
			<-s.Engine.Started
			if how == "DELETE" {
				s.Do("DELETE", h, "")
			} else {
				s.Do("POST", h, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}`)
			}
			<-s.Engine.Cancelled
			<-s.Engine.SendErrs
			var a answer
			select {
			case a = <-out:
			case <-time.After(5 * time.Second):
				t.Fatal("the cancelled call's POST was never answered")
			}
			if a.err != nil {
				t.Fatalf("POST: %v", a.err)
			}
			if a.status != http.StatusOK || a.ct != tc.ct {
				t.Fatalf("the cancelled call's POST was answered %d, Content-Type %q, body %q; want 200 %s", a.status, a.ct, a.body, tc.ct)
			}
			if tc.ct == "application/json" {
				if id, code, _ := RPCError(t, a.body); id != `"c1"` || code != output.ErrRequestCancelled.Code {
					t.Errorf("body %s, want error -32800 for id c1", a.body)
				}
			} else if msgs := Messages(t, Events(t, a.body)); len(msgs) != 0 {
				t.Errorf("stream %q, want no message", a.body)
			}
		})
	}
}

// newLiftServer serves a slowAnswerEngine answering after delay behind an
// http.Server whose WriteTimeout is writeTimeout, over HTTP/2 if h2; flush,
// if set, replaces the default header flush delay. It serves on a MemNet,
// for a test in a synctest bubble: the lift at the flush delay must come
// before the WriteTimeout, and on a loaded machine a timer late by the
// difference (250 ms in these tests) had the HTTP/2 stream reset.
func newLiftServer(t *testing.T, delay, writeTimeout, flush time.Duration, h2 bool) *TestServer {
	te := NewTestEngine()
	h := New(slowAnswerEngine{te, delay}, nil)
	if flush != 0 {
		h.out.HeaderFlushDelay = flush
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.WriteTimeout = writeTimeout
	srv.EnableHTTP2 = h2
	new(testutil.MemNet).Serve(srv, h2)
	t.Cleanup(func() {
		_ = h.Shutdown(context.Background())
		srv.CloseClientConnections()
		srv.Close()
	})
	return &TestServer{T: t, Handler: h, Engine: te, HTTPServer: srv, Client: srv.Client(), URL: srv.URL + "/mcp"}
}

// TestJSONBatchOutlivesServerWriteTimeout: a call whose client takes only
// JSON outlives the server's WriteTimeout (lifted at the header flush
// delay), alone or in a 2025-03-26 batch answered as a JSON array (the
// batch once got no lift and lost its answer).
func TestJSONBatchOutlivesServerWriteTimeout(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		s := newLiftServer(t, 600*time.Millisecond, 300*time.Millisecond, 50*time.Millisecond, false)
		sid := s.Initialize(Version20250326)
		call := `{"jsonrpc":"2.0","id":%ID%,"method":"tools/call","params":{"name":"late-ok","arguments":{}}}`
		post := func(body string) (int, string, error) {
			req, _ := http.NewRequest("POST", s.URL, strings.NewReader(body))
			for k, v := range SessionHeaders(sid, Version20250326) {
				req.Header[k] = v
			}
			req.Header.Set("Accept", "application/json")
			resp, err := s.Client.Do(req)
			if err != nil {
				return 0, "", err
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			return resp.StatusCode, string(b), err
		}
		// The single call gets its answer...
		status, body, err := post(strings.ReplaceAll(call, "%ID%", "1"))
		if err != nil || status != 200 || !strings.Contains(body, `"text":"late"`) {
			t.Fatalf("single JSON-only call: %d %q %v, want the result", status, body, err)
		}
		// ...and so does the same call in a batch.
		status, body, err = post("[" + strings.ReplaceAll(call, "%ID%", "2") + "]")
		if err != nil || status != 200 || !strings.Contains(body, `"text":"late"`) {
			t.Fatalf("JSON-only batch of the same call: %d %q %v, want the result", status, body, err)
		}
	})
}
