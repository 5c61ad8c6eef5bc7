package redisstore_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

// TestAppendBatch: a batch is appended as its events would be one by one
// (what a MemoryEventStore does with them), each event failing or not on
// its own; also after Redis lost its scripts.
func TestAppendBatch(t *testing.T) {
	s, c := newStore(t, &redisstore.Options{MaxBytesPerSession: scriptBound})
	checkBatchLikeAppends(t, s, "a")
	if err := c.ScriptFlush(ctx5(t)).Err(); err != nil {
		t.Fatal(err)
	}
	checkBatchLikeAppends(t, s, "b")
}

// checkBatchLikeAppends appends two batches of events of 20 sessions (named
// after tag), with refusals among them, to s (bound scriptBound) and one
// by one to a MemoryEventStore, and compares the errors and what After
// returns.
func checkBatchLikeAppends(t *testing.T, s httptransport.BatchEventStore, tag string) {
	t.Helper()
	ctx := ctx5(t)
	mem := httptransport.NewMemoryEventStore(&httptransport.MemoryEventStoreOptions{MaxBytesPerSession: scriptBound})
	var batches [2][]httptransport.EventAppend
	for i := range 20 {
		sid := fmt.Sprint(tag, i)
		batches[0] = append(batches[0],
			httptransport.EventAppend{Session: sid, Stream: "A", Index: 1}, // priming
			httptransport.EventAppend{Session: sid, Stream: "B", Index: 3, Data: []byte(data("b3", 10))})
		next := httptransport.EventAppend{Session: sid, Stream: "A", Index: 2, Data: []byte(data("a2", 10))}
		switch i % 5 {
		case 1:
			next.Index = 4 // out of order
		case 2:
			next.Index = 0 // refused before Redis
		case 3:
			next.Stream = "" // refused before Redis
		}
		batches[1] = append(batches[1], next, httptransport.EventAppend{Session: sid, Stream: "B", Index: 4, Data: []byte(data("b4", 10))})
	}
	for n, batch := range batches {
		errs := s.AppendBatch(ctx, batch)
		if errs != nil && len(errs) != len(batch) {
			t.Fatalf("batch %d: %d errors for %d events", n, len(errs), len(batch))
		}
		for i, e := range batch {
			want := e.Index < 1 || e.Stream == "" // refused before Redis
			if !want {
				want = mem.Append(ctx, e.Session, e.Stream, e.Index, e.Data) != nil
			}
			if got := errs != nil && errs[i] != nil; got != want {
				t.Errorf("batch %d, event %+v: failed %v, want %v (%v)", n, e, got, want, errs)
			}
		}
	}
	for i := range 20 {
		for _, stream := range []string{"A", "B"} {
			op := eventOp{after: true, session: fmt.Sprint(tag, i), stream: stream}
			for op.index = 0; op.index < 4; op.index++ {
				if got, want := runOp(ctx, s, op), runOp(ctx, mem, op); !reflect.DeepEqual(got, want) {
					t.Errorf("%+v: redis %+v, memory %+v", op, got, want)
				}
			}
		}
	}
}
