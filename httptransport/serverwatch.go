package httptransport

import (
	"net/http"
)

// serverWatch follows one *http.Server that serves the handler: its down
// channel closes when the server's Shutdown begins. http.Server.Shutdown
// neither ends active requests nor sees hijacked connections, so held
// streams (parked or not) end through it, and a stream is not parked on a
// server that is going down.
type serverWatch struct {
	srv  *http.Server
	down chan struct{} // closed under Handler.mu (see park)
}

// watchServer returns the watch of the server r came through, registering
// the server's shutdown hook the first time the handler sees it (every
// request asks, so that the hook is in place before any Shutdown). It is
// nil for requests not served by an *http.Server. A server whose very first
// request reaches the handler after its Shutdown began runs no hook of
// ours (net/http has no way to ask): Handler.Shutdown still ends all.
func (h *Handler) watchServer(r *http.Request) *serverWatch {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	if w, ok := h.watched.Load(srv); ok {
		return w.(*serverWatch)
	}
	w := &serverWatch{srv: srv, down: make(chan struct{})}
	if cur, loaded := h.watched.LoadOrStore(srv, w); loaded {
		return cur.(*serverWatch)
	}
	srv.RegisterOnShutdown(func() { h.serverDown(w) })
	return w
}

// downC is a channel closed when the watched server shuts down; nil (never
// ready) without a watch.
func (w *serverWatch) downC() <-chan struct{} {
	if w == nil {
		return nil
	}
	return w.down
}

// isDownLocked reports whether the server has begun to shut down; the
// caller holds Handler.mu.
func (w *serverWatch) isDownLocked() bool {
	if w == nil {
		return false
	}
	select {
	case <-w.down:
		return true
	default:
		return false
	}
}

// serverDown runs when a watched server shuts down: the streams parked on
// its connections end, and the listens it carries end with their final
// result; 2025-era and 2024-11-05 streams still on its handlers' goroutines
// end through downC (hold).
func (h *Handler) serverDown(w *serverWatch) {
	h.mu.Lock()
	if !w.isDownLocked() { // net/http runs the hooks again at each Shutdown
		close(w.down)
	}
	h.mu.Unlock()
	h.endParked(w.srv)
	h.endListens(func(c *Call) bool { return c.srv == w.srv })
}
