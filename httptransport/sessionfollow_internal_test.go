package httptransport

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// readMessage reads the next message of an SSE stream, or fails after d.
func readMessage(t *testing.T, r *SSEReader, d time.Duration) *jsonrpc.Message {
	t.Helper()
	got := make(chan *jsonrpc.Message, 1)
	go func() { got <- r.NextMessage() }()
	select {
	case m := <-got:
		return m
	case <-time.After(d):
		t.Fatalf("no message within %v", d)
		return nil
	}
}

// TestSessionMessagesFollowStream: what the engine sends to a session
// outside any call on an instance that does not hold the session's GET
// stream reaches the stream on the instance that does, in order, once:
// messages sent before the stream opened there too. A request sent that
// way is answered through either instance.
func TestSessionMessagesFollowStream(t *testing.T) {
	t.Parallel()
	a, b := Pair(t, Options{})
	sid := a.Initialize(Version20251125)
	note := func(n int) *jsonrpc.Message {
		return jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":`+string(rune('0'+n))+`}`))
	}
	if err := a.Engine.SessionRequest(sid, note(1)); err != nil { // no stream anywhere yet
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	get := b.Open(ctx, "GET", GetHeaders(sid, Version20251125), "")
	defer get.Body.Close()
	r := NewSSEReader(t, get.Body)
	if m := readMessage(t, r, 5*time.Second); string(m.Params) != string(note(1).Params) {
		t.Fatalf("first message on b's stream: %s %s, want the one sent on a before it opened", m.Method, m.Params)
	}
	for n := 2; n <= 4; n++ {
		if err := a.Engine.SessionRequest(sid, note(n)); err != nil {
			t.Fatal(err)
		}
	}
	for n := 2; n <= 4; n++ {
		if m := readMessage(t, r, 5*time.Second); string(m.Params) != string(note(n).Params) {
			t.Fatalf("message %d on b's stream: %s, want %s", n, m.Params, note(n).Params)
		}
	}
	// A request from a's session, answered through b.
	if err := a.Engine.SessionRequest(sid, &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.Int64ID(7), Method: "roots/list"}); err != nil {
		t.Fatal(err)
	}
	req := readMessage(t, r, 5*time.Second)
	if req.Method != "roots/list" {
		t.Fatalf("got %s, want roots/list", req.Method)
	}
	answer := `{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"result":{"roots":[]}}`
	if resp, _ := b.Do("POST", SessionHeaders(sid, Version20251125), answer); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("answer: %d", resp.StatusCode)
	}
	select {
	case reply := <-a.Engine.Replies:
		if reply.ID != jsonrpc.Int64ID(7) {
			t.Errorf("a's engine got the answer as id %s, want 7", reply.ID)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a's engine never got the answer")
	}
	// Nothing was written twice: a holds nothing for a later GET there.
	if kept, _ := liveOf(t, a, sid).standalone.TakeUndelivered(context.Background()); len(kept) != 0 {
		n := len(kept)
		t.Errorf("a still keeps %d messages for a GET there", n)
	}
}
