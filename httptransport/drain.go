package httptransport

import "sync"

// drainGroup counts the requests and calls in flight so Shutdown can wait
// for them; once closed it admits nothing new, which a sync.WaitGroup
// cannot promise when Add races Wait.
type drainGroup struct {
	mu     sync.Mutex
	n      int
	closed bool
	zero   chan struct{} // closed when n drops to 0 after close
}

// enter admits one more request or call, or reports false after close.
func (d *drainGroup) enter() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return false
	}
	d.n++
	return true
}

// enterLate admits work that a request already in flight starts (a
// 2025-era call outliving its POST) even while closing.
func (d *drainGroup) enterLate() {
	d.mu.Lock()
	d.n++
	d.mu.Unlock()
}

func (d *drainGroup) exit() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n--
	if d.n == 0 && d.closed && d.zero != nil {
		close(d.zero)
		d.zero = nil
	}
}

// close stops admissions and returns a channel closed when nothing is in
// flight any more.
func (d *drainGroup) close() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	done := make(chan struct{})
	if d.n == 0 {
		close(done)
	} else {
		d.zero = done
	}
	return done
}
