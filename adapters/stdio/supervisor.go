package stdio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// errClosed refuses calls once the engine, or the session's child, is
// being closed.
var errClosed = errors.New("stdio: the MCP server is shutting down")

// supervisor keeps one child running: it starts it, initializes it
// (through start), and restarts it with backoff when it ends, until
// closed.
type supervisor struct {
	cfg   *config
	name  string // for logs: "shared" or the session's id
	start func(ctx context.Context) (*child, error)

	ctx    context.Context // ends starts and backoff waits at close
	cancel context.CancelFunc
	loopWG sync.WaitGroup

	mu      sync.Mutex
	cur     *child
	ready   chan struct{} // closed when cur is set, a start failed, or close began
	lastErr error         // the last start's failure, until a start succeeds
	closed  bool
}

// newSupervisor starts the loop that keeps a child running.
func newSupervisor(cfg *config, name string, start func(context.Context) (*child, error)) *supervisor {
	s := &supervisor{cfg: cfg, name: name, start: start, ready: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.loopWG.Add(1)
	go s.loop()
	return s
}

// get returns the running child, waiting for a start under way. While
// the child is down after a failed start, it fails at once with that
// start's error.
func (s *supervisor) get(ctx context.Context) (*child, error) {
	for {
		s.mu.Lock()
		switch {
		case s.closed:
			s.mu.Unlock()
			return nil, errClosed
		case s.cur != nil && !s.cur.isGone():
			c := s.cur
			s.mu.Unlock()
			return c, nil
		case s.lastErr != nil:
			err := s.lastErr
			s.mu.Unlock()
			return nil, err
		}
		ready := s.ready
		s.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, fmt.Errorf("stdio: waiting for the MCP server to start: %w", ctx.Err())
		}
	}
}

// current returns the running child, or nil.
func (s *supervisor) current() *child {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil && !s.cur.isGone() {
		return s.cur
	}
	return nil
}

// signal wakes whoever waits in get, and makes a new ready channel.
func (s *supervisor) signalLocked() {
	close(s.ready)
	s.ready = make(chan struct{})
}

func (s *supervisor) loop() {
	defer s.loopWG.Done()
	backoff := s.cfg.minBack
	for {
		c, err := s.start(s.ctx)
		if s.ctx.Err() != nil {
			if c != nil {
				c.p.stop(s.cfg.stopTimeout)
				c.waitAnswers()
			}
			return
		}
		if err != nil {
			s.cfg.log.Error("stdio: starting the MCP server failed", "child", logval.String(s.name), "error", logval.Err(err), "retry_in", backoff)
			s.mu.Lock()
			s.lastErr = err
			s.signalLocked()
			s.mu.Unlock()
			if !s.sleep(backoff) {
				return
			}
			backoff = min(2*backoff, s.cfg.maxBack)
			continue
		}
		started := time.Now()
		s.mu.Lock()
		s.cur, s.lastErr = c, nil
		s.signalLocked()
		s.mu.Unlock()
		s.cfg.log.Info("stdio: MCP server started", "child", logval.String(s.name), "pid", c.p.pid(), "protocol_version", c.version)
		select {
		case <-c.done:
		case <-s.ctx.Done():
			c.stopping.Store(true)
			c.p.stop(s.cfg.stopTimeout)
			c.waitAnswers()
			return
		}
		c.p.stop(s.cfg.stopTimeout) // reaps it, or ends one that closed its stdout only
		c.waitAnswers()
		if time.Since(started) > time.Minute {
			backoff = s.cfg.minBack
		}
		c.mu.Lock()
		reason := c.gone
		c.mu.Unlock()
		s.cfg.log.Warn("stdio: MCP server ended; restarting", "child", logval.String(s.name), "pid", c.p.pid(), "reason", logval.Err(reason), "exit", logval.Err(c.p.waitErr), "retry_in", backoff)
		s.mu.Lock()
		s.cur = nil
		s.mu.Unlock()
		if !s.sleep(backoff) {
			return
		}
		backoff = min(2*backoff, s.cfg.maxBack)
	}
}

// sleep waits d, or until close; it reports whether it was not closed.
func (s *supervisor) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// close stops the child (stdin closed, then SIGTERM, then SIGKILL) and
// the loop, and waits for both.
func (s *supervisor) close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		s.signalLocked()
	}
	s.mu.Unlock()
	s.cancel()
	s.loopWG.Wait()
}
