// Package fanout runs the deliveries of many queues (a listen's pending
// notifications, a session's outbox) on a few workers, started when there
// is work and gone when there is none: a broadcast to 100,000 sessions
// costs neither a goroutine per session nor a goroutine while idle.
//
// A delivery blocked on a client that stopped reading blocks only the
// worker making it: once a worker's Flush has taken the pool's stuck
// threshold, the pool counts the worker as stuck and starts another in
// its place, up to MaxWorkers in all.
package fanout

import (
	"sync"
	"sync/atomic"
	"time"
)

// MaxWorkers bounds a pool's workers, stuck ones included: past it, no
// worker replaces a stuck one, and the deliveries wait for stuck writes to
// end rather than grow further. A stuck write ends at the transport's
// WriteTimeout (30 s by default) at most, when the transport ends that
// client's stream. A stuck worker costs its stack, a few KiB: at this
// bound, some 100-250 MiB, for 32,768 clients that stopped reading at
// once.
const MaxWorkers = 1 << 15

// SessionWorkers is how many workers an engine's pool of session outboxes
// runs (not counting stuck ones): at most this many goroutines deliver a
// broadcast to the 2025-era sessions open on an instance, however many
// there are, so that with the goroutine that broadcasts and the event
// store client's own (a connection being dialled) a broadcast takes 64
// goroutines at most. Each delivery waits for its event to be stored;
// with a store that batches appends (httptransport.BatchEventStore) those
// under way at once go to the store together.
const SessionWorkers = 56

// SessionStuck is how long a delivery to a session must have taken for
// its worker to count as stuck. It is long beside a write to a client
// that reads, because a delivery also waits for its event store (a
// round trip to Redis, behind a batch of others'): only a store or a
// client that stopped answering takes that long.
const SessionStuck = time.Second

// Queue is what a pool delivers: a queue of messages for one client.
type Queue interface {
	// Flush delivers some of the queue's messages and reports whether
	// any are left, in which case the pool queues it again, at the back:
	// one busy queue does not hold the others.
	Flush() (more bool)
}

// Pool delivers queues with a few workers. The caller puts a queue on the
// pool at most once at a time (until its Flush reports none left).
type Pool[Q Queue] struct {
	active int           // workers not counted as stuck; at most this many run at once
	stuck  time.Duration // how long a Flush takes before its worker counts as stuck

	mu      sync.Mutex
	queue   []Q
	head    int
	workers map[*worker]struct{}
	running int // workers not counted as stuck
	timer   *time.Timer
	armed   bool
	closed  bool
	wg      sync.WaitGroup
}

// worker is one worker; since is when its current Flush began (unix
// nanoseconds, 0 between them).
type worker struct {
	since atomic.Int64
	stuck bool // under the pool's mu
}

// New returns a pool that runs at most active workers not counted as
// stuck, a worker counting as stuck once its current Flush has taken
// stuck. It needs no Close: idle, it has no goroutine and no timer armed.
func New[Q Queue](active int, stuck time.Duration) *Pool[Q] {
	p := &Pool[Q]{active: active, stuck: stuck, workers: make(map[*worker]struct{})}
	p.timer = time.AfterFunc(time.Hour, p.watch)
	p.timer.Stop()
	return p
}

// Push queues qs and starts workers for them.
func (p *Pool[Q]) Push(qs ...Q) {
	if len(qs) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.queue = append(p.queue, qs...)
	p.spawnLocked()
}

// spawnLocked starts workers for the queued queues, up to active running
// ones and MaxWorkers in all, and arms the watch while any runs.
func (p *Pool[Q]) spawnLocked() {
	for p.running < p.active && len(p.workers) < MaxWorkers && p.running < len(p.queue)-p.head {
		w := &worker{}
		p.workers[w] = struct{}{}
		p.running++
		p.wg.Add(1)
		go p.work(w)
	}
	if len(p.workers) > 0 && !p.armed {
		p.armed = true
		p.timer.Reset(p.stuck)
	}
}

// work delivers queued queues until none is left, or until the pool has
// counted the worker as stuck and replaced it.
func (p *Pool[Q]) work(w *worker) {
	defer p.wg.Done()
	var zero Q
	for {
		p.mu.Lock()
		if w.stuck || p.head == len(p.queue) || p.closed {
			delete(p.workers, w)
			if !w.stuck {
				p.running--
			}
			if p.head == len(p.queue) {
				p.queue, p.head = nil, 0 // let a burst's array go
			}
			p.mu.Unlock()
			return
		}
		q := p.queue[p.head]
		p.queue[p.head] = zero
		p.head++
		p.mu.Unlock()
		w.since.Store(time.Now().UnixNano())
		more := q.Flush()
		w.since.Store(0)
		if more {
			p.Push(q)
		}
	}
}

// watch counts the workers whose Flush has taken the stuck threshold as
// stuck and starts others in their place; it runs every stuck threshold
// while any worker does.
func (p *Pool[Q]) watch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed = false
	now := time.Now().UnixNano()
	for w := range p.workers {
		if s := w.since.Load(); !w.stuck && s != 0 && now-s > int64(p.stuck) {
			w.stuck = true
			p.running--
		}
	}
	if !p.closed {
		p.spawnLocked()
	}
}

// Close drops what is queued, refuses what is pushed from now on, and
// waits for the workers, which end once their Flush does.
func (p *Pool[Q]) Close() {
	p.mu.Lock()
	p.closed = true
	p.queue, p.head = nil, 0
	p.timer.Stop()
	p.armed = false
	p.mu.Unlock()
	p.wg.Wait()
}
