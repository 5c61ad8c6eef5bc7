package httptransport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// slowFalseStore publishes a "stream let go" notice slowly, as a remote
// relay may: the publish of the old GET's Held:false is under way while
// the client's new GET on the same instance announces Held:true.
type slowFalseStore struct{ *MemorySessionStore }

func (s slowFalseStore) Publish(ctx context.Context, sid string, msg []byte) error {
	if bytes.Contains(msg, []byte(`\"held\":false`)) || bytes.Contains(msg, []byte(`"held":false`)) {
		time.Sleep(300 * time.Millisecond)
	}
	return s.MemorySessionStore.Publish(ctx, sid, msg)
}

// TestStaleLetGoNoticeIgnored: the notice that an instance let go of the
// session's GET stream, published slowly, arrives after the one saying it
// attached the client's next GET: the messages of the session still go
// to that stream (the notices carry the attachment's generation).
func TestStaleLetGoNoticeIgnored(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		a, b := PairOn(t, mn, Options{Sessions: slowFalseStore{NewMemorySessionStore()}})
		sid := a.Initialize(Version20251125)
		ctx1, cancel1 := context.WithCancel(context.Background())
		get1 := b.Open(ctx1, "GET", GetHeaders(sid, Version20251125), "")
		btag := liveOf(t, b, sid).tag
		at := func() string { ls := liveOf(t, a, sid); ls.mu.Lock(); defer ls.mu.Unlock(); return ls.streamAt }
		for deadline := time.Now().Add(5 * time.Second); at() != btag; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("a never heard b holds the stream")
			}
		}
		cancel1()
		get1.Body.Close()
		// The client reconnects at once, to the same instance.
		ctx2, cancel2 := context.WithCancel(context.Background())
		defer cancel2()
		var get2 *http.Response
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			get2 = b.Open(ctx2, "GET", GetHeaders(sid, Version20251125), "")
			if get2.StatusCode == http.StatusOK {
				break
			}
			get2.Body.Close()
			if time.Now().After(deadline) {
				t.Fatalf("second GET: %d", get2.StatusCode)
			}
		}
		defer get2.Body.Close()
		time.Sleep(600 * time.Millisecond) // both notices delivered
		note := jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":1}`))
		if err := a.Engine.SessionRequest(sid, note); err != nil {
			t.Fatal(err)
		}
		r := NewSSEReader(t, get2.Body)
		got := make(chan *jsonrpc.Message, 1)
		go func() { got <- r.NextMessage() }()
		select {
		case m := <-got:
			if m.Method != "notifications/message" {
				t.Errorf("b's stream got %s, want the session's message", m.Method)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("a session message sent on a never reached the GET stream open on b (a's streamAt %q)", at())
		}
	})
}

// failForwardStore is a shared store whose relay fails to carry forwarded
// session messages.
type failForwardStore struct{ *MemorySessionStore }

func (s failForwardStore) Publish(ctx context.Context, sid string, msg []byte) error {
	if bytes.Contains(msg, []byte(forwardMethod)) {
		return errors.New("relay down")
	}
	return s.MemorySessionStore.Publish(ctx, sid, msg)
}

// TestKeptMessagesSurviveFailedForward: a message kept for the next GET,
// which the relay then fails to forward to a GET on another instance, is
// kept still: the client's next GET here gets it.
func TestKeptMessagesSurviveFailedForward(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		a, b := PairOn(t, mn, Options{Sessions: failForwardStore{NewMemorySessionStore()}})
		sid := a.Initialize(Version20251125)
		note := jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":1}`))
		if err := a.Engine.SessionRequest(sid, note); err != nil { // no stream anywhere: kept on a
			t.Fatal(err)
		}
		ctx1, cancel1 := context.WithCancel(context.Background())
		get1 := b.Open(ctx1, "GET", GetHeaders(sid, Version20251125), "")
		time.Sleep(300 * time.Millisecond) // a hears b holds the stream, tries to forward, fails
		cancel1()
		get1.Body.Close()
		time.Sleep(300 * time.Millisecond)
		// "kept here": the client's next GET on a should get it.
		ctx2, cancel2 := context.WithCancel(context.Background())
		defer cancel2()
		get2 := a.Open(ctx2, "GET", GetHeaders(sid, Version20251125), "")
		defer get2.Body.Close()
		r := NewSSEReader(t, get2.Body)
		got := make(chan *jsonrpc.Message, 1)
		go func() { got <- r.NextMessage() }()
		select {
		case m := <-got:
			if m.Method != "notifications/message" {
				t.Errorf("a's stream got %s, want the kept message", m.Method)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("the message a failed to forward was neither delivered on b nor kept on a")
		}
	})
}
