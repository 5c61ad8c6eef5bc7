package httptransport

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
)

// serveGet opens or resumes (Last-Event-ID) the GET stream of session sid,
// or of a stream the Last-Event-ID names (routeOf).
func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request, sid string) {
	lastID := r.Header.Get("Last-Event-Id")
	if !acceptsSSE(r) {
		writeRefusal(w, noID, errNotAcceptableSSE)
		return
	}
	if h.refuseUnflushable(w, noID, errCannotFlushGet) {
		return
	}
	if sid == "" {
		writeRefusal(w, noID, errSessionMissing)
		return
	}
	ls := h.sessionOf(w, r, sid)
	if ls == nil {
		return
	}
	defer ls.unpin()
	st, after, replay, carried, herr := h.streamFor(r, ls, lastID)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	if st == nil {
		h.resumeAbsent(w, r, ls, lastID) // orphan.go
		return
	}
	owner := h.streams.owner(r.Context())
	if !h.streams.take(owner, 1) {
		refuseOverQuota(w, errTooManyStreams)
		return
	}
	release := h.streams.place(owner)
	detached, err := st.Attach(w, after, replay, h.parkable(r), release, carried...)
	if err != nil {
		h.streams.give(owner, 1)
		writeRefusal(w, noID, attachRefusal(err))
		return
	}
	if st.Standalone() {
		st.StartTimer(r)
		ls.announceStream(r.Context(), true) // the session's messages come here now (sessionfollow.go)
	}
	closed := h.observeStream(r.Context(), StreamGet)
	h.hold(&exchange{w: w, r: r, ls: ls}, st, detached, release, func() {
		closed()
		ctx := context.WithoutCancel(r.Context())
		if st.Standalone() {
			ls.announceStream(ctx, false)
		}
		h.withStore(ctx, func(ctx context.Context) { _ = ls.touch(ctx) })
	})
}

// hold keeps a GET attached to st until the client leaves, the stream or
// the session ends, or the handler shuts down; the session counts as active
// meanwhile, so it does not expire under an open stream. after runs once
// the GET is over. On HTTP/1.x the stream is parked (park.go) and hold
// returns at once; after then runs on the stream's watcher.
//
// The caller took the stream's place in the principal's quota, and gave
// attach the release that gives it back (the stream calls it as the GET
// ends, hold when the GET is over, if it has not been); hold ends the GET
// when its time is up (streamLimit).
func (h *Handler) hold(x *exchange, st *output.Stream, detached <-chan struct{}, release, after func()) {
	w, r, ls := x.w, x.r, x.ls
	ls.mu.Lock()
	ls.active++
	ls.mu.Unlock()
	stopLimit := func() bool { return false }
	if d, ok := h.streamLimit(r); ok {
		stopLimit = time.AfterFunc(d, func() { st.DetachAttached(detached) }).Stop
	}
	over := func() {
		stopLimit()
		if release != nil {
			release()
		}
		ls.mu.Lock()
		ls.active--
		ls.mu.Unlock()
		after()
	}
	answers := ls.sess.Legacy && st.Standalone() // see park
	if h.park(w, r, st, answers, over) {
		return
	}
	// Shutdown ends a 2024-11-05 event stream itself, once the answers it
	// carries are out (liveSession.closeStreams).
	shutdown := h.shutdownC
	if answers {
		shutdown = nil
	}
	select {
	case <-detached:
	case <-st.Done():
	case <-r.Context().Done():
	case <-shutdown:
	case <-h.watchServer(r).downC(): // http.Server.Shutdown waits for this handler
	}
	st.Detach()
	over()
}
