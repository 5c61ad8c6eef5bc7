package httptransport_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestStoreOutageIsNot404: spec 2025-11-25 basic/transports#session-management, "Do not return 404 for anything
// else ... on a request that carries a session id". An instance that does
// not yet serve a session (load balancer, restart, idle copy dropped) and
// cannot read it from the shared store answers 503 with Retry-After; it
// once answered 404, and clients threw live sessions away.
func TestStoreOutageIsNot404(t *testing.T) {
	t.Parallel()
	store := httptransport.NewFaultStore()
	a := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{Sessions: store}, nil, false)
	b := httptransport.StartTestServer(t, httptransport.NewTestEngine(), &httptransport.Options{Sessions: store}, nil, false)
	sid := a.Initialize(httptransport.Version20251125)
	store.FailGet.Store(true)
	resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools)
	store.FailGet.Store(false)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a transient store error answered %d %s (Retry-After %q), want 503 with Retry-After", resp.StatusCode, body, resp.Header.Get("Retry-After"))
	}
	if resp, body := b.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), httptransport.ListTools); resp.StatusCode != 200 {
		t.Fatalf("once the store is back the session is served: %d %s", resp.StatusCode, body)
	}
}

// TestBatchStreamOpensAfterHeaderFlushDelay: a 2025-03-26 batch answered
// over SSE opens its stream after HeaderFlushDelay of silence, as a single
// call does (its stream once waited for its first member's answer: no
// status line, headers or keep-alives before).
func TestBatchStreamOpensAfterHeaderFlushDelay(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{HeaderFlushDelay: 50 * time.Millisecond, KeepAlive: 50 * time.Millisecond})
	s.Engine.Gate = make(chan struct{})
	defer close(s.Engine.Gate)
	sid := s.Initialize(httptransport.Version20250326)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"text":"a"}}}]`))
	req.Header = httptransport.SessionHeaders(sid, httptransport.Version20250326)
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
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"JSONRPC":"2.0","ID":1,"METHOD":"tools/list"}`)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "-32600") {
		t.Errorf("a message with no \"jsonrpc\" member: %d %s, want 400 with -32600", resp.StatusCode, body)
	}
}

// TestCancelIDWrittenDifferently: notifications/cancelled names a request
// by its id as a JSON value: "c1" cancels the request sent as "\u0063\u0031"
// (ids were once told apart by their bytes, and the cancel went nowhere).
func TestCancelIDWrittenDifferently(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	h := httptransport.SessionHeaders(sid, httptransport.Version20251125)
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
