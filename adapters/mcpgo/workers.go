package mcpgo

import (
	"context"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// workers runs mcp-go's handling of session calls on goroutines kept
// between calls. mcp-go's HandleMessage needs a deep stack (its JSON
// decoding): on the fresh goroutine the transport starts for each call of
// a 2025-era session, growing the stack to that depth took an eighth of a
// call's time (runtime.copystack in profiles of bench's session2025). A
// kept goroutine has grown its stack already. A call that finds no idle
// worker starts one, up to maxWorkers; past that it runs where it is.
type workers struct {
	ctx  context.Context // ends every worker
	jobs chan *callJob   // unbuffered: a send succeeds only to an idle worker
	pool sync.Pool       // *callJob, reused

	mu sync.Mutex
	n  int // workers running
	wg sync.WaitGroup
}

const (
	maxWorkers = 256
	workerIdle = 30 * time.Second // an idle worker ends after this
)

func newWorkers(ctx context.Context) *workers {
	w := &workers{ctx: ctx, jobs: make(chan *callJob)}
	w.pool.New = func() any { return &callJob{done: make(chan struct{}, 1)} }
	return w
}

// callJob is one call handed to a worker, and its outcome.
type callJob struct {
	e        *Engine
	ctx      context.Context
	call     *httptransport.Call
	m        *jsonrpc.Message
	err      error
	p        any // what serve panicked with
	panicked bool
	done     chan struct{} // signalled once the call is served
}

func (j *callJob) run() {
	defer func() {
		if r := recover(); r != nil {
			j.p, j.panicked = r, true
		}
		j.done <- struct{}{}
	}()
	j.m, j.err = j.e.serve(j.ctx, j.call)
}

// serve has e serve call on a worker and returns its outcome; a panic is
// raised again on the caller's goroutine, where the transport recovers it.
func (w *workers) serve(e *Engine, ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	j := w.pool.Get().(*callJob)
	j.e, j.ctx, j.call = e, ctx, call
	w.start(j)
	<-j.done
	m, err, p, panicked := j.m, j.err, j.p, j.panicked
	*j = callJob{done: j.done}
	w.pool.Put(j)
	if panicked {
		panic(p)
	}
	return m, err
}

// start hands j to an idle worker, or to a new one, or runs it here.
func (w *workers) start(j *callJob) {
	select {
	case w.jobs <- j:
		return
	default:
	}
	w.mu.Lock()
	if w.n >= maxWorkers || w.ctx.Err() != nil {
		w.mu.Unlock()
		j.run()
		return
	}
	w.n++
	w.wg.Add(1)
	w.mu.Unlock()
	go w.loop(j)
}

func (w *workers) loop(j *callJob) {
	defer w.wg.Done()
	idle := time.NewTimer(workerIdle)
	defer idle.Stop()
	for {
		j.run()
		idle.Reset(workerIdle)
		select {
		case j = <-w.jobs:
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
