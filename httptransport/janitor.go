package httptransport

import (
	"context"
	"time"
)

// startJanitor starts, once, the loop that ends idle sessions.
func (h *Handler) startJanitor() {
	if h.cfg.idleTimeout <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.janitor != nil || h.closing.Load() {
		return
	}
	h.janitor = make(chan struct{})
	stopped := h.janitor
	interval := max(h.cfg.idleTimeout/4, 5*time.Millisecond)
	h.janitorWG.Add(1)
	go func() {
		defer h.janitorWG.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-stopped:
				return
			case <-h.ctx.Done():
				return
			case now := <-t.C:
				h.expire(now)
			}
		}
	}()
}

// expire ends the sessions idle for longer than the idle timeout: nothing
// in flight, no stream attached, no request for that long.
func (h *Handler) expire(now time.Time) {
	h.mu.Lock()
	var idle []*liveSession
	for _, ls := range h.live {
		if ls.idle(now, h.cfg.idleTimeout) {
			idle = append(idle, ls)
		}
	}
	h.mu.Unlock()
	for _, ls := range idle {
		h.cfg.logger.Debug("mcp: session expired", "session", ls.id)
		ls.end(context.Background(), true)
	}
	if m, ok := h.sessions.(*MemorySessionStore); ok {
		m.Sweep()
	}
}

func (h *Handler) stopJanitor() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.janitor != nil {
		close(h.janitor)
		h.janitor = nil
	}
	h.mu.Unlock()
	h.janitorWG.Wait()
	h.mu.Lock()
}
