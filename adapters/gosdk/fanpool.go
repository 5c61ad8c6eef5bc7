package gosdk

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// fanStuck is how long a worker's write must have taken for the pool to
// count the worker as stuck on a client that stopped reading and start
// another in its place: a write to a client that reads takes microseconds.
const fanStuck = 5 * time.Millisecond

// fanMaxWorkers bounds the pool's workers, stuck ones included: past it,
// no worker replaces a stuck one, and the fan-out waits for stuck writes
// to end rather than grow further. A stuck write ends at the transport's
// WriteTimeout (30 s by default) at most, when the transport ends that
// client's stream. A stuck worker costs its stack, a few KiB: at this
// bound, some 100-250 MiB, for 32,768 clients that stopped reading at
// once.
const fanMaxWorkers = 1 << 15

// fanPool writes the listens' notifications with a few workers, started
// when there is work and gone when there is none: the fan-out of one
// change to 100,000 listens costs neither a goroutine per listen nor a
// goroutine while idle. A listen is on the queue at most once (its
// messages are coalesced meanwhile, see hub.go).
type fanPool struct {
	active int // workers not counted as stuck; at most this many run at once

	mu      sync.Mutex
	queue   []*listener
	head    int
	workers map[*fanWorker]struct{}
	running int // workers not counted as stuck
	timer   *time.Timer
	armed   bool
	closed  bool
	wg      sync.WaitGroup
}

// fanWorker is one worker; since is when its current write began (unix
// nanoseconds, 0 between writes).
type fanWorker struct {
	since atomic.Int64
	stuck bool // under the pool's mu
}

func newFanPool() *fanPool {
	p := &fanPool{active: max(8, 4*runtime.GOMAXPROCS(0)), workers: make(map[*fanWorker]struct{})}
	p.timer = time.AfterFunc(time.Hour, p.watch)
	p.timer.Stop()
	return p
}

// push queues listens to write and starts workers for them.
func (p *fanPool) push(ls ...*listener) {
	if len(ls) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.queue = append(p.queue, ls...)
	p.spawnLocked()
}

// spawnLocked starts workers for the queued listens, up to active running
// ones and fanMaxWorkers in all, and arms the watch while any runs.
func (p *fanPool) spawnLocked() {
	for p.running < p.active && len(p.workers) < fanMaxWorkers && p.running < len(p.queue)-p.head {
		w := &fanWorker{}
		p.workers[w] = struct{}{}
		p.running++
		p.wg.Add(1)
		go p.work(w)
	}
	if len(p.workers) > 0 && !p.armed {
		p.armed = true
		p.timer.Reset(fanStuck)
	}
}

// work writes queued listens until none is left, or until the pool has
// counted the worker as stuck and replaced it.
func (p *fanPool) work(w *fanWorker) {
	defer p.wg.Done()
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
		l := p.queue[p.head]
		p.queue[p.head] = nil
		p.head++
		p.mu.Unlock()
		w.since.Store(time.Now().UnixNano())
		more := l.flush()
		w.since.Store(0)
		if more {
			p.push(l) // to the back: one busy listen does not hold the others
		}
	}
}

// watch counts the workers whose write has taken fanStuck as stuck and
// starts others in their place; it runs every fanStuck while any worker
// does.
func (p *fanPool) watch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed = false
	now := time.Now().UnixNano()
	for w := range p.workers {
		if s := w.since.Load(); !w.stuck && s != 0 && now-s > int64(fanStuck) {
			w.stuck = true
			p.running--
		}
	}
	if !p.closed {
		p.spawnLocked()
	}
}

// close drops what is queued and waits for the workers, which end once
// their write does.
func (p *fanPool) close() {
	p.mu.Lock()
	p.closed = true
	p.queue, p.head = nil, 0
	p.timer.Stop()
	p.armed = false
	p.mu.Unlock()
	p.wg.Wait()
}
