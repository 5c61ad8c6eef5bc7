package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

// eventOp is one call of a script run against both event stores.
type eventOp struct {
	closed  bool   // SessionClosed(session)
	after   bool   // After(session, stream, index); otherwise Append
	session string // "s" when empty
	stream  string
	index   int
	data    string // Append: "" is a priming event (nil data)
}

// eventResult is what a call returned, comparable across stores.
type eventResult struct {
	events []string // "<nil>" for nil data
	gone   bool     // ErrEventsGone
	err    bool     // any other error
}

func runOp(ctx context.Context, s httptransport.EventStore, op eventOp) eventResult {
	session := op.session
	if session == "" {
		session = "s"
	}
	var err error
	var events [][]byte
	switch {
	case op.closed:
		err = s.SessionClosed(ctx, session)
	case op.after:
		events, err = s.After(ctx, session, op.stream, op.index)
	default:
		var data []byte
		if op.data != "" {
			data = []byte(op.data)
		}
		err = s.Append(ctx, session, op.stream, op.index, data)
	}
	var r eventResult
	r.gone = errors.Is(err, httptransport.ErrEventsGone)
	r.err = err != nil && !r.gone
	for _, e := range events {
		if e == nil {
			r.events = append(r.events, "<nil>")
		} else {
			r.events = append(r.events, string(e))
		}
	}
	return r
}

// data returns n bytes of data naming an event.
func data(name string, n int) string {
	return name + strings.Repeat(".", n-len(name))
}

// TestEventsLikeMemory: the Store answers a script of appends, replays and
// closes exactly as httptransport.MemoryEventStore with the same bound
// does: indexes from 1, a priming event's nil data, replays from any kept
// point, ErrEventsGone for unknown sessions and streams, for indexes past
// the last and before the first kept, after the session's oldest events
// were dropped for its bound (the newest always kept), after
// SessionClosed, and an out-of-order index refused.
func TestEventsLikeMemory(t *testing.T) {
	s, _ := newStore(t, &redisstore.Options{MaxBytesPerSession: scriptBound})
	checkEventsLikeMemory(t, s)
}

// scriptBound is the MaxBytesPerSession checkEventsLikeMemory expects:
// three events of 10 bytes, as both stores count them.
const scriptBound = 3 * (10 + 128)

// checkEventsLikeMemory runs TestEventsLikeMemory's script on s, whose
// bound is scriptBound, and on a MemoryEventStore, comparing each step.
func checkEventsLikeMemory(t *testing.T, s httptransport.EventStore) {
	t.Helper()
	ctx := ctx5(t)
	mem := httptransport.NewMemoryEventStore(&httptransport.MemoryEventStoreOptions{MaxBytesPerSession: scriptBound})
	a := func(stream string, index int, d string) eventOp {
		return eventOp{stream: stream, index: index, data: d}
	}
	after := func(stream string, index int) eventOp { return eventOp{after: true, stream: stream, index: index} }
	script := []eventOp{
		after("A", 0), // unknown session
		a("A", 1, ""), // priming
		after("A", 0),
		after("A", 1),
		after("A", 2), // past the last
		after("B", 0), // unknown stream
		a("A", 2, data("a2", 10)),
		a("A", 4, data("a4", 10)), // out of order
		after("A", 0),
		after("A", -1),
		a("A", 3, data("a3", 10)),
		a("A", 4, data("a4", 10)), // the priming event is dropped
		after("A", 0),
		after("A", 1),
		after("A", 3),
		a("B", 7, data("b7", 10)), // a stream starting at 7; a2 dropped
		after("A", 1),
		after("A", 2),
		after("B", 6),
		after("B", 5),
		a("B", 8, data("b8", 10)),
		a("B", 9, data("b9", 10)),
		after("A", 3), // A entirely dropped
		after("A", 4),
		after("B", 6),
		a("A", 9, data("a9", 10)), // A again, from 9
		after("A", 8),
		after("A", 0),
		a("C", 1, data("big", 5000)), // larger than the bound: alone kept
		after("C", 0),
		after("B", 9),
		after("A", 9),
		{session: "other", stream: "A", index: 1, data: "o1"},
		{closed: true},
		after("C", 0),
		{session: "other", after: true, stream: "A", index: 0},
		a("C", 2, data("c2", 10)), // after SessionClosed: a new start
		after("C", 1),
		after("C", 0),
		{closed: true, session: "never"},
	}
	for i, op := range script {
		want := runOp(ctx, mem, op)
		got := runOp(ctx, s, op)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("step %d %+v: redis %+v, memory %+v", i, op, got, want)
		}
	}
}

// TestEventsBound: the session's keys stay within the bound whatever
// the number of events and streams: the order list holds the kept events
// only, and a stream emptied by the bound has no keys left.
func TestEventsBound(t *testing.T) {
	ctx := ctx5(t)
	max := 4 * (100 + 128)
	s, c := newStore(t, &redisstore.Options{MaxBytesPerSession: max})
	for stream := range 50 {
		for i := 1; i <= 20; i++ {
			if err := s.Append(ctx, "s", fmt.Sprint("st", stream), i, []byte(data("x", 100))); err != nil {
				t.Fatal(err)
			}
		}
	}
	ks := keys(t, c, testPrefix(t))
	if len(ks) != 3 { // the bookkeeping, the order, the last stream
		t.Errorf("keys: %v", ks)
	}
	var order string
	for _, k := range ks {
		if strings.HasSuffix(k, "#") {
			order = k
		}
	}
	if n := c.LLen(ctx, order).Val(); n != 4 {
		t.Errorf("order holds %d events, want 4", n)
	}
	got, err := s.After(ctx, "s", "st49", 16)
	if err != nil || len(got) != 4 {
		t.Errorf("After(16) = %d events, %v", len(got), err)
	}
	if _, err := s.After(ctx, "s", "st49", 15); !errors.Is(err, httptransport.ErrEventsGone) {
		t.Errorf("After(15) = %v, want ErrEventsGone", err)
	}
}

// TestAppendRefusesIndexBelowOne: indexes count from 1; Append refuses 0
// and negative ones before its script runs. A negative index starting a
// stream was once stored, and its entry in the session's order failed the
// eviction that reached it, halfway, on every later Append.
func TestAppendRefusesIndexBelowOne(t *testing.T) {
	ctx := ctx5(t)
	s, _ := newStore(t, &redisstore.Options{MaxBytesPerSession: 3 + 128}) // one event of 3 bytes
	if err := s.Append(ctx, "s", "st", 1, []byte("one")); err != nil {
		t.Fatal(err)
	}
	for _, index := range []int{0, -1} {
		if err := s.Append(ctx, "s", fmt.Sprint("new", index), index, []byte("bad")); err == nil {
			t.Errorf("Append starting a stream at index %d: no error", index)
		}
	}
	for i, stream := range []string{"a", "b"} { // each evicts the event before it
		if err := s.Append(ctx, "s", stream, 1, []byte("ok"+stream)); err != nil {
			t.Fatalf("append %d after the refused ones: %v", i, err)
		}
	}
	if got, err := s.After(ctx, "s", "b", 0); err != nil || len(got) != 1 || string(got[0]) != "okb" {
		t.Errorf("After(b, 0) = %q, %v", got, err)
	}
}

// TestEventsExpire: every key of a session's events expires EventTTL
// after its last Append, and then After is ErrEventsGone.
func TestEventsExpire(t *testing.T) {
	ctx := ctx5(t)
	s, c := newStore(t, &redisstore.Options{EventTTL: 300 * time.Millisecond})
	for i := 1; i <= 3; i++ {
		if err := s.Append(ctx, "s", "A", i, []byte("a")); err != nil {
			t.Fatal(err)
		}
		if err := s.Append(ctx, "s", "B", i, []byte("b")); err != nil {
			t.Fatal(err)
		}
	}
	ks := keys(t, c, testPrefix(t))
	if len(ks) != 4 {
		t.Errorf("keys: %v", ks)
	}
	for _, k := range ks {
		if ttl := c.PTTL(ctx, k).Val(); ttl <= 0 || ttl > 300*time.Millisecond {
			t.Errorf("%s: PTTL %v", k, ttl)
		}
	}
	time.Sleep(200 * time.Millisecond)
	if err := s.Append(ctx, "s", "B", 4, []byte("b")); err != nil { // refreshes B, not A
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := s.After(ctx, "s", "A", 0); !errors.Is(err, httptransport.ErrEventsGone) {
		t.Errorf("After(A) past its TTL = %v, want ErrEventsGone", err)
	}
	if got, err := s.After(ctx, "s", "B", 2); err != nil || len(got) != 2 {
		t.Errorf("After(B, 2) = %q, %v", got, err)
	}
	time.Sleep(400 * time.Millisecond)
	if ks := keys(t, c, testPrefix(t)); len(ks) != 0 {
		t.Errorf("keys left after EventTTL: %v", ks)
	}
	if _, err := s.After(ctx, "s", "B", 0); !errors.Is(err, httptransport.ErrEventsGone) {
		t.Errorf("After(B) past its TTL = %v, want ErrEventsGone", err)
	}
}

// TestSessionClosed: SessionClosed forgets every stream of the session
// and leaves no key of it, and leaves other sessions' events, whatever
// their ids hold.
func TestSessionClosed(t *testing.T) {
	ctx := ctx5(t)
	s, c := newStore(t, nil)
	sessions := []string{"s", "s}:x", "s}", "t"}
	for _, session := range sessions {
		for _, stream := range []string{"A", "B", "x:A"} {
			for i := 1; i <= 2; i++ {
				if err := s.Append(ctx, session, stream, i, []byte(session+"/"+stream)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	before := len(keys(t, c, testPrefix(t)))
	if err := s.SessionClosed(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	for _, stream := range []string{"A", "B", "x:A"} {
		if _, err := s.After(ctx, "s", stream, 0); !errors.Is(err, httptransport.ErrEventsGone) {
			t.Errorf("After(%s) after SessionClosed = %v", stream, err)
		}
		for _, other := range sessions[1:] {
			got, err := s.After(ctx, other, stream, 0)
			if err != nil || len(got) != 2 || string(got[0]) != other+"/"+stream {
				t.Errorf("session %q stream %s: %q, %v", other, stream, got, err)
			}
		}
	}
	if after := len(keys(t, c, testPrefix(t))); after != before-5 { // 3 streams, bookkeeping, order
		t.Errorf("keys: %d before SessionClosed, %d after, want 5 fewer", before, after)
	}
}
