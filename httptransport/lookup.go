package httptransport

import (
	"context"
	"errors"
	"net/http"

	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/logval"
)

// sessionIDHeader returns the Mcp-Session-Id, which must appear at most once
// and hold visible ASCII.
func sessionIDHeader(r *http.Request) (string, *httpError) {
	values := r.Header.Values("Mcp-Session-Id")
	switch {
	case len(values) == 0:
		return "", nil
	case len(values) > 1 || !validSessionID(values[0]):
		return "", errSessionHeader
	}
	return values[0], nil
}

// lookup finds a session this instance serves, or loads it from the store
// and starts serving it here. A session owned by another principal is
// reported as not found (spec 2025-11-25
// basic/transports#session-management, "Session Hijacking"). The session
// returned is pinned (liveSession.pin): the caller unpins it when it is
// done with the request.
func (h *Handler) lookup(r *http.Request, sid string) (*liveSession, *httpError) {
	owner := identity.FromContext(r.Context()).Owner()
	h.mu.Lock()
	ls := h.live[sid]
	h.mu.Unlock()
	if ls != nil {
		// A 2024-11-05 session is reached through its sessionId URL only.
		if ls.owner != owner || ls.sess.Legacy {
			return nil, errSessionNotFound
		}
		ls.pin()
		var err error
		h.withStore(r.Context(), func(ctx context.Context) { err = ls.refresh(ctx) })
		if errors.Is(err, ErrNoSession) {
			// Deleted or expired on another instance sharing the store.
			ls.unpin()
			h.withStore(context.WithoutCancel(r.Context()), ls.gone)
			return nil, errSessionNotFound
		} else if err != nil {
			h.warn("mcp: checking the session in the store failed", "session", logval.String(sid), "error", logval.Err(err))
		}
		return ls, nil
	}
	var rec *SessionRecord
	var err error
	h.withStore(r.Context(), func(ctx context.Context) { rec, err = h.sessions.Get(ctx, sid) })
	switch {
	case errors.Is(err, ErrNoSession):
		if !h.cfg.sharedSessions {
			h.noteForeignSession(sid)
		}
		return nil, errSessionNotFound
	case err != nil:
		// The store failed, not the session: a 404 would make the client
		// drop a session that may well be there.
		h.warn("mcp: reading the session from the store failed", "session", logval.String(sid), "error", logval.Err(err))
		return nil, errSessionUnavailable
	case rec.Owner != owner || rec.Legacy || rec.Pending:
		return nil, errSessionNotFound
	}
	release := h.admitSession(r.Context(), "")
	if release == nil {
		return nil, errInstanceSessions
	}
	sess := &Session{ID: rec.ID, Version: rec.Version, Legacy: rec.Legacy, state: rec.State}
	fresh := h.newLiveSession(sess, owner, "", release)
	fresh.pin() // before anyone else can see it
	ls, err = h.adopt(fresh)
	if errors.Is(err, errClosing) {
		return nil, errShuttingDown
	}
	if err != nil {
		h.warn("mcp: opening the session on the engine failed", "session", logval.String(sid), "error", logval.Err(err))
		return nil, errSessionUnavailable
	}
	h.withStore(r.Context(), func(ctx context.Context) { _ = ls.touch(ctx) }) // the record was just read
	return ls, nil
}

// errClosing refuses to start serving a session once Shutdown has begun.
var errClosing = errors.New("httptransport: shutting down")

// adopt registers a live session and opens it on the engine. If another
// request adopted the same session first, that one wins. Once Shutdown
// has begun no session is adopted (errClosing): Shutdown ends the sessions
// it listed under h.mu after setting closing, and one adopted later, by a
// request already in flight, would outlive it with its relay subscription.
func (h *Handler) adopt(ls *liveSession) (*liveSession, error) {
	h.mu.Lock()
	if cur := h.live[ls.id]; cur != nil {
		if ls.users > 0 { // a pinned copy (lookup's), not yet seen by others
			cur.pin() // under h.mu, before it can be ended to make room
		}
		h.mu.Unlock()
		ls.stop()
		if ls.release != nil {
			ls.release()
		}
		return cur, nil
	}
	if h.closing.Load() {
		h.mu.Unlock()
		ls.end(context.WithoutCancel(ls.ctx), false)
		return nil, errClosing
	}
	h.live[ls.id] = ls
	h.mu.Unlock()
	h.startJanitor()
	h.startLiveness(ls.ctx)
	ls.subscribe()
	if err := h.engine.OpenSession(ls.ctx, ls.sess, ls); err != nil {
		ls.end(context.WithoutCancel(ls.ctx), false)
		return nil, err
	}
	h.observeSession(ls, true)
	return ls, nil
}

// sessionOf is lookup for a GET or DELETE: its MCP-Protocol-Version is
// checked first (a refused DELETE leaves the session alone, and lookup
// would start serving it here). It answers the request itself and returns
// nil when the session is not to be had; the caller unpins the session.
func (h *Handler) sessionOf(w http.ResponseWriter, r *http.Request, sid string) *liveSession {
	if herr := h.checkVersionHeader(r); herr != nil {
		writeRefusal(w, noID, herr)
		return nil
	}
	ls, herr := h.lookup(r, sid)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return nil
	}
	return ls
}
