package httptransport

import (
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// Session ids this instance mints begin with its tag, so that an instance
// keeping sessions in its own memory can tell a session another instance
// created (a load balancer spreading one client's requests) from one that
// expired or was deleted here, and say so in its log: the client gets 404
// either way, and starts a new session, over and over.

// foreignWarnEvery spaces the warnings about other instances' sessions.
const foreignWarnEvery = time.Minute

// mintedElsewhere reports whether sid has the form of the session ids
// mintSessionID makes, with another instance's tag (or an earlier run's).
func (h *Handler) mintedElsewhere(sid string) bool {
	n := len(h.tag)
	return len(sid) == n+randomIDLen && sid[:n] != h.tag && isTagText(sid)
}

// noteForeignSession logs, once a minute at most, that a request named a
// session another instance created, which this one cannot serve: a
// 2025-era session while sessions live in each instance's memory
// (Options.Sessions unset), a 2024-11-05 one always (it lives where its
// event stream is).
func (h *Handler) noteForeignSession(sid string) {
	if !h.mintedElsewhere(sid) {
		return
	}
	now := int64(time.Since(h.created)) // monotonic: a clock stepped back does not silence it
	last := h.foreignWarned.Load()
	if last != 0 && now-last < int64(foreignWarnEvery) || !h.foreignWarned.CompareAndSwap(last, now) {
		return
	}
	h.cfg.logger.Warn("mcp: 404 for a session another instance (or an earlier run of this one) created: behind a load balancer, share a SessionStore across instances (Options.Sessions) or set Options.Stateless for 2025-era clients, and route 2024-11-05 clients by ?sessionId=", "session", logval.String(sid))
}
