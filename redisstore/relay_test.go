package redisstore_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/redisstore"
)

// inbox collects what a subscriber is delivered.
type inbox struct {
	ch chan string
}

func newInbox() *inbox { return &inbox{ch: make(chan string, 16)} }

func (in *inbox) deliver(msg []byte) { in.ch <- string(msg) }

// next returns the next message delivered, failing the test after 5 s.
func (in *inbox) next(t *testing.T) string {
	t.Helper()
	select {
	case m := <-in.ch:
		return m
	case <-time.After(5 * time.Second):
		t.Fatal("no message within 5 s")
		return ""
	}
}

// empty fails the test if anything was delivered.
func (in *inbox) empty(t *testing.T, who string) {
	t.Helper()
	select {
	case m := <-in.ch:
		t.Errorf("%s was delivered %q", who, m)
	default:
	}
}

// numSub returns how many connections Redis counts subscribed to channel.
func numSub(t *testing.T, c *redis.Client, channel string) int64 {
	t.Helper()
	n, err := c.PubSubNumSub(context.Background(), channel).Result()
	if err != nil {
		t.Fatal(err)
	}
	return n[channel]
}

// TestRelayFanOut: a message published through one Store reaches both
// local subscribers of its session on another Store, and no subscriber of
// another session; Redis sees one subscription for the two; after one
// unsubscribes (twice: it is idempotent) only the other is delivered, and
// after the last leaves Redis sees none.
func TestRelayFanOut(t *testing.T) {
	ctx := ctx5(t)
	pub, c := newStore(t, nil)
	sub, _ := newStore(t, nil)
	channel := testPrefix(t) + "relay:s"
	one, two, other := newInbox(), newInbox(), newInbox()
	unsubOne, err := sub.Subscribe(ctx, "s", one.deliver)
	if err != nil {
		t.Fatal(err)
	}
	unsubTwo, err := sub.Subscribe(ctx, "s", two.deliver)
	if err != nil {
		t.Fatal(err)
	}
	unsubOther, err := sub.Subscribe(ctx, "t", other.deliver)
	if err != nil {
		t.Fatal(err)
	}
	defer unsubOther()
	if n := numSub(t, c, channel); n != 1 {
		t.Errorf("subscriptions to %s: %d, want 1 (one connection per Store)", channel, n)
	}
	buf := []byte(`{"jsonrpc":"2.0","id":"a","result":{}}`)
	if err := pub.Publish(ctx, "s", buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXXXXX") // Publish must not keep it
	for name, in := range map[string]*inbox{"one": one, "two": two} {
		if got := in.next(t); got != `{"jsonrpc":"2.0","id":"a","result":{}}` {
			t.Errorf("%s got %q", name, got)
		}
	}

	unsubOne()
	unsubOne()
	if err := pub.Publish(ctx, "s", []byte("second")); err != nil {
		t.Fatal(err)
	}
	if got := two.next(t); got != "second" {
		t.Errorf("two got %q", got)
	}
	// Messages on the Store's connection are dispatched in order: once
	// "t" arrives, anything for the first subscriber would have been
	// delivered.
	if err := pub.Publish(ctx, "t", []byte("marker")); err != nil {
		t.Fatal(err)
	}
	if got := other.next(t); got != "marker" {
		t.Errorf("other got %q", got)
	}
	one.empty(t, "an unsubscribed subscriber")
	two.empty(t, "two")

	unsubTwo()
	unsubTwo()
	waitFor(t, func() bool { return numSub(t, c, channel) == 0 }, "the channel's UNSUBSCRIBE")
	if n := numSub(t, c, testPrefix(t)+"relay:t"); n != 1 {
		t.Errorf("the other session's subscriptions: %d, want 1", n)
	}
	if err := pub.Publish(ctx, "s", []byte("third")); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, "t", []byte("marker2")); err != nil {
		t.Fatal(err)
	}
	other.next(t)
	one.empty(t, "one")
	two.empty(t, "two")
}

// TestRelayResubscribe: a session's channel subscribed again after its
// last subscriber left delivers again, also to a subscriber that
// unsubscribes itself from deliver (deliver runs outside the store's
// locks).
func TestRelayResubscribe(t *testing.T) {
	ctx := ctx5(t)
	s, _ := newStore(t, nil)
	for round := range 3 {
		got := make(chan string, 1)
		var unsub func()
		var mu sync.Mutex
		mu.Lock()
		u, err := s.Subscribe(ctx, "s", func(msg []byte) {
			mu.Lock()
			defer mu.Unlock()
			unsub()
			got <- string(msg)
		})
		if err != nil {
			t.Fatal(err)
		}
		unsub = u
		mu.Unlock()
		if err := s.Publish(ctx, "s", []byte("hello")); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if m != "hello" {
				t.Errorf("round %d: %q", round, m)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: nothing delivered", round)
		}
	}
}

// TestRelayClosed: Subscribe after Close fails; Close may be called
// again; an unsubscribe after Close does nothing.
func TestRelayClosed(t *testing.T) {
	ctx := ctx5(t)
	c := newClient(t)
	s := redisstore.New(c, &redisstore.Options{Prefix: testPrefix(t)})
	unsub, err := s.Subscribe(ctx, "s", func([]byte) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	unsub()
	if _, err := s.Subscribe(ctx, "s", func([]byte) {}); err == nil {
		t.Error("Subscribe after Close succeeded")
	}
	// A Store that never subscribed closes too.
	if err := redisstore.New(c, nil).Close(); err != nil {
		t.Error(err)
	}
}

// TestRelayRedisDown: Publish and Subscribe fail with an error (not a
// hang past their context) when Redis does not answer.
func TestRelayRedisDown(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { _ = c.Close() })
	s := redisstore.New(c, nil)
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Publish(ctx, "s", []byte("x")); err == nil {
		t.Error("Publish succeeded")
	}
	if _, err := s.Subscribe(ctx, "s", func([]byte) {}); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("Subscribe = %v", err)
	}
}

// TestRelayChurn: many subscribers come and go on a few dozen channels,
// often giving up within a millisecond, so that channels are subscribed
// and unsubscribed again while confirmations are on their way; a message
// published as soon as a Subscribe returned is delivered to it every time.
func TestRelayChurn(t *testing.T) {
	s, c := newStore(t, nil)
	var wg sync.WaitGroup
	var ok atomic.Int64
	for g := range 40 {
		wg.Go(func() {
			for i := range 300 {
				sess := "s" + strconv.Itoa(rand.IntN(60))
				msg := strconv.Itoa(g) + ":" + strconv.Itoa(i)
				got := make(chan struct{}, 1)
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(1500))*time.Microsecond)
				unsub, err := s.Subscribe(ctx, sess, func(m []byte) {
					if string(m) == msg {
						got <- struct{}{}
					}
				})
				cancel()
				if err != nil {
					continue
				}
				ok.Add(1)
				if err := c.Publish(context.Background(), testPrefix(t)+"relay:"+sess, msg).Err(); err != nil {
					t.Error(err)
				}
				select {
				case <-got:
				case <-time.After(2 * time.Second):
					t.Errorf("%s, published on %s once its Subscribe returned, was not delivered", msg, sess)
				}
				unsub()
			}
		})
	}
	wg.Wait()
	t.Logf("%d of 12000 Subscribes succeeded", ok.Load())
	if ok.Load() == 0 {
		t.Error("no Subscribe succeeded")
	}
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within 5 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
