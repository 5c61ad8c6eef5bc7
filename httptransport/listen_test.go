package httptransport_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestListen: subscriptions/listen answers with a stream whose first
// message is the acknowledgement, then the list changes tagged with the
// subscription id, with keep-alive comments between, and, on Shutdown,
// the listen result before the stream ends.
func TestListen(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{KeepAlive: 20 * time.Millisecond})
	h := httptransport.ModernHeaders("subscriptions/listen")
	resp := s.Open(context.Background(), "POST", h, `{"jsonrpc":"2.0","id":"L1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+httptransport.Meta+`}}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	r := httptransport.NewSSEReader(t, resp.Body)
	ack := r.NextMessage()
	if ack.Method != "notifications/subscriptions/acknowledged" || !strings.Contains(string(ack.Params), `"io.modelcontextprotocol/subscriptionId":"L1"`) {
		t.Fatalf("first message %s %s", ack.Method, ack.Params)
	}
	comments := 0
	for comments < 2 {
		e, err := r.R.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.IsComment {
			comments++
		}
	}
	s.Engine.Broadcast()
	m := r.NextMessage()
	if m.Method != "notifications/tools/list_changed" || !strings.Contains(string(m.Params), `"L1"`) {
		t.Fatalf("got %s %s", m.Method, m.Params)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error)
	go func() { done <- s.Handler.Shutdown(ctx) }()
	final := r.NextMessage()
	if !final.IsResponse() || final.ID.Raw() != `"L1"` || !strings.Contains(string(final.Result), `"resultType":"complete"`) || !strings.Contains(string(final.Result), `"io.modelcontextprotocol/subscriptionId":"L1"`) {
		t.Fatalf("final %s %s", final.ID, final.Result)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// TestListenClientClose: closing a listen stream cancels the subscription.
func TestListenClientClose(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	resp := s.Open(ctx, "POST", httptransport.ModernHeaders("subscriptions/listen"), `{"jsonrpc":"2.0","id":3,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+httptransport.Meta+`}}`)
	r := httptransport.NewSSEReader(t, resp.Body)
	r.NextMessage()
	if n := s.Engine.ListenerCount(); n != 1 {
		t.Fatalf("%d listeners", n)
	}
	cancel()
	deadline := time.Now().Add(5 * time.Second)
	for s.Engine.ListenerCount() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("listen not cancelled after the client closed it")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestEarlyHeaderFlush: a call that stays silent past HeaderFlushDelay has
// its status and headers sent (with a comment), so clients see a first
// byte.
func TestEarlyHeaderFlush(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{HeaderFlushDelay: 10 * time.Millisecond})
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "slow")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	resp := s.Open(ctx, "POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"f"},`+httptransport.Meta+`}}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%d %v", resp.StatusCode, resp.Header)
	}
	// With no event to carry the headers, a comment does.
	first := make([]byte, 1)
	if _, err := io.ReadFull(resp.Body, first); err != nil || first[0] != ':' {
		t.Fatalf("stream starts %q (%v)", first, err)
	}
	cancel()
	<-s.Engine.Cancelled
	<-s.Engine.SendErrs
}
