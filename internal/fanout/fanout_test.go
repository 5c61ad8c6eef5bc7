package fanout

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// gatedQueue is a queue of one message whose delivery waits for gate.
type gatedQueue struct {
	gate    chan struct{}
	running *atomic.Int32 // deliveries under way
	peak    *atomic.Int32
	done    *sync.WaitGroup
}

func (q *gatedQueue) Flush() bool {
	n := q.running.Add(1)
	for p := q.peak.Load(); n > p && !q.peak.CompareAndSwap(p, n); p = q.peak.Load() {
	}
	<-q.gate
	q.running.Add(-1)
	q.done.Done()
	return false
}

// TestPoolBounded: 1,000 queues pushed at once are delivered by at most
// active workers while the deliveries take less than the stuck
// threshold; once they have taken longer, the pool counts its workers as
// stuck and starts as many again; idle, it has no goroutine left.
// (Deliveries count themselves: the bubble's goroutines include the
// test's own.)
func TestPoolBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const active, n = 8, 1000
		p := New[*gatedQueue](active, time.Second)
		var running, peak atomic.Int32
		var done sync.WaitGroup
		gate := make(chan struct{})
		for range n {
			done.Add(1)
			p.Push(&gatedQueue{gate: gate, running: &running, peak: &peak, done: &done})
		}
		synctest.Wait()
		if got := running.Load(); got != active {
			t.Errorf("%d workers deliver %d queues, want %d", got, n, active)
		}
		time.Sleep(2 * time.Second) // the watch, every second, finds them over a second old
		synctest.Wait()
		if got := running.Load(); got != 2*active {
			t.Errorf("%d workers once the first %d were stuck, want %d", got, active, 2*active)
		}
		close(gate)
		done.Wait()
		if peak.Load() > 2*active {
			t.Errorf("%d deliveries at once, want at most %d", peak.Load(), 2*active)
		}
		// The bubble ends once its goroutines have: idle, the pool has
		// none left, and its watch is not armed again.
	})
}
