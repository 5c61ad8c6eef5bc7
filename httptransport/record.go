package httptransport

import (
	"context"
	"errors"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// How a live session keeps its SessionStore record (spec 2025-11-25 basic/transports#session-management).
//
// The handler's own store (Options.Sessions nil) is private: only this
// instance writes it, and the live session is the authority. A store
// passed in Options.Sessions is taken as shared by other instances, and
// the record is the authority: a session whose record is gone (deleted or
// expired elsewhere) ends here too, and every instance then answers 404.
// A 2024-11-05 session lives on the instance holding its stream and is
// never shared.

// defaultStoreTimeout bounds each piece of store work done for a session
// (a request's lookup, touch, save or DELETE, initialize's Put, a janitor
// round's touch or expiry, the touch and save at the end of a call, an
// EventStore's replay or SessionClosed), so that a store that hangs holds
// nothing for long and one slow session never eats the others' time.
const defaultStoreTimeout = 5 * time.Second

// withStore runs f with a context for store calls: parent's values and
// cancellation, at most the store timeout. The handler's own in-memory
// stores never block, so with both of them f gets parent as it is.
func (h *Handler) withStore(parent context.Context, f func(ctx context.Context)) {
	if !h.cfg.sharedSessions && (h.cfg.events == nil || h.cfg.ownEvents) {
		f(parent)
		return
	}
	ctx, cancel := context.WithTimeout(parent, h.cfg.storeTimeout)
	defer cancel()
	f(ctx)
}

// eventsCtx is the context of an EventStore call: parent's, bounded by
// the store timeout for a store of the user's, which may be remote (the
// handler's own never blocks).
func (h *Handler) eventsCtx(parent context.Context) (context.Context, context.CancelFunc) {
	if h.cfg.ownEvents {
		return parent, func() {}
	}
	return context.WithTimeout(parent, h.cfg.storeTimeout)
}

// shared reports whether other instances may serve this session.
func (ls *liveSession) shared() bool {
	return ls.h.cfg.sharedSessions && !ls.sess.Legacy
}

// touch records activity and extends the stored record's life. For a
// shared session it reports ErrNoSession when the record is gone.
func (ls *liveSession) touch(ctx context.Context) error {
	now := time.Now()
	ls.mu.Lock()
	ls.lastUsed = now
	ls.mu.Unlock()
	var err error
	switch {
	case ls.h.cfg.idleTimeout > 0:
		err = ls.h.sessions.Touch(ctx, ls.id, ls.h.cfg.idleTimeout)
	case ls.shared():
		_, err = ls.h.sessions.Get(ctx, ls.id)
	}
	if !ls.shared() {
		return nil
	}
	if err == nil {
		ls.mu.Lock()
		ls.touched = now
		ls.mu.Unlock()
	}
	return err
}

// refresh is touch for a request of a session served here: for a shared
// session it also reads the record, and takes the state another instance
// saved (Session.refreshState), so that no request is served with state
// older than the store's. It reports ErrNoSession when the record is gone.
func (ls *liveSession) refresh(ctx context.Context) error {
	if !ls.shared() {
		return ls.touch(ctx)
	}
	var rec *SessionRecord
	var err error
	// The touch is dated from before the store call, as touch dates it:
	// the record's new life runs from a moment in the call, and a reply
	// that comes late must not make it look younger (touchStale).
	touched := time.Now()
	if r, ok := ls.h.sessions.(SessionRefresher); ok {
		rec, err = r.TouchGet(ctx, ls.id, ls.h.cfg.idleTimeout)
	} else if err = ls.touch(ctx); err == nil {
		rec, err = ls.h.sessions.Get(ctx, ls.id)
	}
	ls.mu.Lock()
	ls.lastUsed = time.Now()
	if err == nil {
		ls.touched = touched
	}
	ls.mu.Unlock()
	if err == nil && rec.Owner == ls.owner && ls.sess.refreshState(rec.State) {
		if o, ok := ls.h.engine.(SessionStateObserver); ok {
			o.SessionStateChanged(ctx, ls.sess)
		}
	}
	return err
}

// afterCall does the store work due when a call of the session ends:
// touching a shared record the call outlasted, saving changed state. A
// call that leaves nothing to do costs no store context.
func (ls *liveSession) afterCall(parent context.Context) {
	stale := ls.touchStale()
	if !stale && !ls.sess.isDirty() {
		return
	}
	ls.h.withStore(parent, func(ctx context.Context) {
		if stale {
			if err := ls.touch(ctx); errors.Is(err, ErrNoSession) {
				ls.gone(ctx)
				return
			}
		}
		ls.save(ctx)
	})
}

// touchStale reports whether a shared session's record was last touched
// long enough ago to lapse early (a long call touched it only at its
// start and on the janitor's rounds): touched at the call's end, the
// record lives on for at least 7/8 of SessionIdleTimeout.
func (ls *liveSession) touchStale() bool {
	if !ls.shared() || ls.h.cfg.idleTimeout <= 0 {
		return false
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return time.Since(ls.touched) > ls.h.cfg.idleTimeout/8
}

// gone ends a shared session whose record another instance deleted, or
// that expired in the store, and forgets its events.
func (ls *liveSession) gone(ctx context.Context) {
	ls.end(ctx, false)
	if ls.h.cfg.events != nil && !ls.h.cfg.ownEvents { // end forgot the handler's own
		_ = ls.h.cfg.events.SessionClosed(ctx, ls.id)
	}
}

// save stores the engine's state if it changed. A session that has ended
// is not written back, nor a shared one whose record is gone: a call
// ending after a DELETE must not bring the session back. A deletion here
// waits for a save under way (recMu); one on another instance between the
// check and the Put can still be undone (the store has no put-if-present;
// the window is one store round trip).
func (ls *liveSession) save(ctx context.Context) {
	if !ls.sess.takeDirty() {
		return
	}
	ls.recMu.Lock()
	defer ls.recMu.Unlock()
	ls.mu.Lock()
	ended := ls.ended
	ls.mu.Unlock()
	if ended {
		return
	}
	if ls.shared() {
		if _, err := ls.h.sessions.Get(ctx, ls.id); errors.Is(err, ErrNoSession) {
			ls.gone(ctx)
			return
		}
	}
	rec := &SessionRecord{ID: ls.id, Owner: ls.owner, Version: ls.sess.Version, Legacy: ls.sess.Legacy, Holder: ls.h.legacyHolder(ls.sess.Legacy), State: ls.sess.State()}
	if err := ls.h.sessions.Put(ctx, rec, ls.h.cfg.idleTimeout); err != nil {
		ls.h.warn("mcp: saving session state failed", "session", logval.String(ls.id), "error", logval.Err(err))
		return
	}
	if ls.shared() {
		ls.mu.Lock()
		ls.touched = time.Now()
		ls.mu.Unlock()
	}
}
