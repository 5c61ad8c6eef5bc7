package httptransport

import (
	"context"
	"sync"
	"time"
)

// periodic is a loop of the handler's that runs a function at a fixed
// interval (the janitor's rounds, the renewals of the liveness record):
// started once, on the handler's first session, and stopped for good by
// Shutdown. The zero value is ready to start.
type periodic struct {
	mu      sync.Mutex
	stop    context.CancelFunc // ends the loop; nil while none runs
	stopped bool               // halted: it never starts again
	wg      sync.WaitGroup
}

// start starts the loop, unless it runs already or was halted, and
// reports whether it did. Every interval it calls tick with a context of
// parent's that ends with the loop, so that no store call of a round
// outlives it, and the time of the tick.
func (p *periodic) start(parent context.Context, interval time.Duration, tick func(ctx context.Context, now time.Time)) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil || p.stopped {
		return false
	}
	ctx, stop := context.WithCancel(parent)
	p.stop = stop
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case now := <-t.C:
				tick(ctx, now)
			}
		}
	}()
	return true
}

// halt ends the loop for good and waits for its round under way.
func (p *periodic) halt() {
	p.mu.Lock()
	p.stopped = true
	stop := p.stop
	p.stop = nil
	p.mu.Unlock()
	if stop != nil {
		stop()
	}
	p.wg.Wait()
}
