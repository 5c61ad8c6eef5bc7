package httptransport

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestCancelledCallPOSTIsReadable: spec 2025-11-25 basic/transports#sending-messages-to-the-server, "Body holds a request:
// answer with Content-Type: text/event-stream (SSE) or application/json". A
// session call cancelled (notifications/cancelled, or DELETE of its
// session) while its POST waits and its stream has not opened gets an SSE
// stream with no event, or, from a client that takes only JSON, a -32800
// error; it once got a bare 200 with no Content-Type, which clients reject.
func TestCancelledCallPOSTIsReadable(t *testing.T) {
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
				if id, code, _ := RPCError(t, a.body); id != `"c1"` || code != codeRequestCancelled {
					t.Errorf("body %s, want error -32800 for id c1", a.body)
				}
			} else if msgs := Messages(t, Events(t, a.body)); len(msgs) != 0 {
				t.Errorf("stream %q, want no message", a.body)
			}
		})
	}
}

// TestStoreOutageIsNot404: spec 2025-11-25 basic/transports#session-management, "Do not return 404 for anything
// else ... on a request that carries a session id". An instance that does
// not yet serve a session (load balancer, restart, idle copy dropped) and
// cannot read it from the shared store answers 503 with Retry-After; it
// once answered 404, and clients threw live sessions away.
func TestStoreOutageIsNot404(t *testing.T) {
	store := NewFaultStore()
	a := StartTestServer(t, NewTestEngine(), &Options{Sessions: store}, nil, false)
	b := StartTestServer(t, NewTestEngine(), &Options{Sessions: store}, nil, false)
	sid := a.Initialize(Version20251125)
	store.FailGet.Store(true)
	resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools)
	store.FailGet.Store(false)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a transient store error answered %d %s (Retry-After %q), want 503 with Retry-After", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if resp, body := b.Do("POST", SessionHeaders(sid, Version20251125), ListTools); resp.StatusCode != 200 {
		t.Fatalf("once the store is back the session is served: %d %s", resp.StatusCode, body)
	}
}

// TestBatchStreamOpensAfterHeaderFlushDelay: a 2025-03-26 batch answered
// over SSE opens its stream after HeaderFlushDelay of silence, as a single
// call does (its stream once waited for its first member's answer: no
// status line, headers or keep-alives before).
func TestBatchStreamOpensAfterHeaderFlushDelay(t *testing.T) {
	s := NewTestServer(t, &Options{HeaderFlushDelay: 50 * time.Millisecond, KeepAlive: 50 * time.Millisecond})
	s.Engine.Gate = make(chan struct{})
	defer close(s.Engine.Gate)
	sid := s.Initialize(Version20250326)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"text":"a"}}}]`))
	req.Header = SessionHeaders(sid, Version20250326)
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("no status line 2 s into a silent batch (HeaderFlushDelay 50 ms): %v", err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
}

// TestCaseFoldedMemberNames: spec 2025-11-25 basic#messages, "jsonrpc must be exactly "2.0".
// Otherwise → -32600": a body with "JSONRPC" has no "jsonrpc" member
// (encoding/json, which folds case, once served it).
func TestCaseFoldedMemberNames(t *testing.T) {
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	resp, body := s.Do("POST", SessionHeaders(sid, Version20251125), `{"JSONRPC":"2.0","ID":1,"METHOD":"tools/list"}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "-32600") {
		t.Errorf("a message with no \"jsonrpc\" member: %d %s, want 400 with -32600", resp.StatusCode, body)
	}
}

// newLiftServer serves a slowAnswerEngine answering after delay behind an
// http.Server whose WriteTimeout is writeTimeout, over HTTP/2 if h2; flush,
// if set, replaces the default header flush delay.
func newLiftServer(t *testing.T, delay, writeTimeout, flush time.Duration, h2 bool) *TestServer {
	te := NewTestEngine()
	h := New(slowAnswerEngine{te, delay}, nil)
	if flush != 0 {
		h.cfg.headerFlushDelay = flush
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.WriteTimeout = writeTimeout
	if h2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
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
}

// TestCancelIDWrittenDifferently: notifications/cancelled names a request
// by its id as a JSON value: "c1" cancels the request sent as "\u0063\u0031"
// (ids were once told apart by their bytes, and the cancel went nowhere).
func TestCancelIDWrittenDifferently(t *testing.T) {
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	h := SessionHeaders(sid, Version20251125)
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"\u0063\u0031","method":"tools/call","params":{"name":"slow","arguments":{"text":"a"}}}`))
		req.Header = h.Clone()
		if resp, err := s.Client.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-s.Engine.Started
	s.Do("POST", h, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c1"}}`)
	select {
	case <-s.Engine.Cancelled:
		<-s.Engine.SendErrs
	case <-time.After(3 * time.Second):
		t.Fatal(`notifications/cancelled for "c1" did not cancel the request sent as "\u0063\u0031"`)
	}
	<-done
}
