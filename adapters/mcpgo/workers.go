package mcpgo

import (
	"context"
	"sync"
	"time"
)

// workers runs mcp-go's handling of calls on goroutines kept between
// calls. mcp-go's HandleMessage needs a deep stack (its JSON decoding): on
// the fresh goroutine the transport starts for a session call, growing the
// stack to it took an eighth of a call's time (runtime.copystack in
// profiles of bench's session2025). A kept goroutine has grown its stack
// already. A call that finds no idle worker starts one, up to
// maxWorkers; past that it runs on its own goroutine.
type workers struct {
	ctx  context.Context // ends every worker
	jobs chan func()     // unbuffered: a send succeeds only to an idle worker

	mu sync.Mutex
	n  int // workers running
	wg sync.WaitGroup
}

const (
	maxWorkers = 256
	workerIdle = 30 * time.Second // an idle worker ends after this
)

func newWorkers(ctx context.Context) *workers {
	return &workers{ctx: ctx, jobs: make(chan func())}
}

// run runs f and returns when it has; a panic in f is raised again on the
// caller's goroutine, where the transport recovers it.
func (w *workers) run(f func()) {
	done := make(chan struct{})
	var p any
	panicked := false
	job := func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				p, panicked = r, true
			}
		}()
		f()
	}
	wait := func() {
		<-done
		if panicked {
			panic(p)
		}
	}
	select {
	case w.jobs <- job:
		wait()
		return
	default:
	}
	w.mu.Lock()
	if w.n >= maxWorkers || w.ctx.Err() != nil {
		w.mu.Unlock()
		f()
		return
	}
	w.n++
	w.wg.Add(1)
	w.mu.Unlock()
	go w.loop(job)
	wait()
}

func (w *workers) loop(job func()) {
	defer w.wg.Done()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		job()
		idle.Reset(workerIdle)
		select {
		case job = <-w.jobs:
		case <-idle.C:
			w.exit()
			return
		case <-w.ctx.Done():
			w.exit()
			return
		}
	}
}

func (w *workers) exit() {
	w.mu.Lock()
	w.n--
	w.mu.Unlock()
}

// wait waits for the workers to end, once ctx is done.
func (w *workers) wait() { w.wg.Wait() }
