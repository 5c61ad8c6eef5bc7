package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/internal/fanout"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// gatedSender takes messages once open is closed, as a client that has
// stopped reading and then reads again.
type gatedSender struct {
	open chan struct{}
	got  chan *jsonrpc.Message
}

func (g *gatedSender) Send(ctx context.Context, msg *jsonrpc.Message) error {
	<-g.open
	g.got <- msg
	return nil
}

// TestOutboxBounded: messages for a client that takes none are queued, in
// order, without the sender waiting, up to outboxBytes; past it a
// notification is dropped and a request fails at once.
func TestOutboxBounded(t *testing.T) {
	t.Parallel()
	g := &gatedSender{open: make(chan struct{}), got: make(chan *jsonrpc.Message, 4096)}
	o := newOutbox(context.Background(), g, fanout.New[*outbox](fanout.SessionWorkers, fanout.SessionStuck))
	params := json.RawMessage(`{"data":"` + strings.Repeat("x", 4000) + `"}`)
	sent := 0
	start := time.Now()
	for i := range 400 { // 1.6 MB: past the bound
		msg := jsonrpc.NewNotification("notifications/message", params)
		msg.Method += "/" + strconv.Itoa(i)
		if err := o.send(context.Background(), msg); err != nil {
			t.Fatalf("notification %d: %v", i, err)
		}
		sent++
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("queueing took %v: the sender waited", d)
	}
	req := &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.Int64ID(1), Method: "roots/list", Params: params}
	if err := o.send(context.Background(), req); !errors.Is(err, errOutboxFull) {
		t.Errorf("request past the bound: %v, want errOutboxFull", err)
	}
	close(g.open)
	n := 0
	for n < sent {
		select {
		case m := <-g.got:
			if want := "notifications/message/" + strconv.Itoa(n); m.Method != want {
				t.Fatalf("message %d is %s, want %s", n, m.Method, want)
			}
			n++
		case <-time.After(100 * time.Millisecond):
			if n*4100 < outboxBytes-8192 || n*4100 > outboxBytes {
				t.Fatalf("%d messages delivered (%d bytes), want what fits in %d", n, n*4100, outboxBytes)
			}
			return
		}
	}
	t.Fatalf("all %d messages delivered: nothing was dropped past the bound", sent)
}

// TestOutboxCancelledRequestNotSent: a server-to-client request queued
// behind a client that is not reading, whose sender gives up (its ctx
// ends, send returns ctx.Err()), does not reach the client later: the SDK
// has failed it, so the client would be asked something (an elicitation,
// a sampling) nobody waits for any more.
func TestOutboxCancelledRequestNotSent(t *testing.T) {
	t.Parallel()
	g := &gatedSender{open: make(chan struct{}), got: make(chan *jsonrpc.Message, 8)}
	o := newOutbox(context.Background(), g, fanout.New[*outbox](fanout.SessionWorkers, fanout.SessionStuck))
	if err := o.send(context.Background(), jsonrpc.NewNotification("notifications/tools/list_changed", nil)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req := &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.Int64ID(7), Method: "elicitation/create", Params: json.RawMessage(`{}`)}
	if err := o.send(ctx, req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("send: %v, want the caller's deadline", err)
	}
	close(g.open) // the client reads again
	deadline := time.After(300 * time.Millisecond)
	for {
		select {
		case m := <-g.got:
			if m.Method == "elicitation/create" {
				t.Fatalf("the request the SDK gave up on (send returned %v) reached the client afterwards", context.DeadlineExceeded)
			}
		case <-deadline:
			return
		}
	}
}
