package httptransport

import (
	"context"
	"errors"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// startJanitor starts, once, the loop that ends idle sessions.
func (h *Handler) startJanitor() {
	if h.cfg.idleTimeout <= 0 || h.closing.Load() {
		return
	}
	h.janitor.start(h.ctx, max(h.cfg.idleTimeout/4, 5*time.Millisecond), h.expire)
}

// expire ends the sessions idle for longer than the idle timeout: nothing
// in flight, no stream attached, no request for that long.
//
// With a store other instances may share (Options.Sessions), this
// instance's idleness says nothing of the others': an idle session is
// only dropped here, and its record expires in the store by the idle
// timeout it was last touched with (its events are forgotten once it
// has). A session in use here keeps its record alive, so a long call or
// a held GET stream does not lose it; one whose record is gone (deleted
// elsewhere) ends here too.
func (h *Handler) expire(ctx context.Context, now time.Time) {
	h.mu.Lock()
	var idle, inUse []*liveSession
	for _, ls := range h.live {
		switch {
		case ls.idle(now, h.cfg.idleTimeout):
			idle = append(idle, ls)
		case h.cfg.sharedSessions && ls.inUse():
			// Other instances read its record: a 2024-11-05 session's too,
			// to relay its POSTs here (legacyrelay.go).
			inUse = append(inUse, ls)
		}
	}
	h.mu.Unlock()
	for _, ls := range idle {
		// Still idle when it ends: a request may have taken the session up
		// since (during a store round trip, say).
		stillIdle := func() bool { return ls.idleLocked(now, h.cfg.idleTimeout) }
		h.withStore(ctx, func(ctx context.Context) {
			if !h.cfg.sharedSessions || ls.sess.Legacy {
				if ls.endIf(ctx, true, stillIdle) {
					h.cfg.logger.Debug("mcp: session expired", "session", logval.String(ls.id))
				}
				return
			}
			if _, err := h.sessions.Get(ctx, ls.id); errors.Is(err, ErrNoSession) {
				ls.gone(ctx) // expired everywhere: its events go too
				return
			}
			ls.endIf(ctx, false, stillIdle)
		})
	}
	for _, ls := range inUse {
		h.withStore(ctx, func(ctx context.Context) {
			if err := ls.touch(ctx); errors.Is(err, ErrNoSession) {
				h.cfg.logger.Debug("mcp: session ended elsewhere", "session", logval.String(ls.id))
				ls.gone(ctx)
			}
		})
	}
	if m, ok := h.sessions.(*MemorySessionStore); ok {
		m.Sweep()
	}
}
