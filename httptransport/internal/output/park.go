package output

import (
	"net/http"

	"github.com/mcpmount/mcpmount/httptransport/internal/wire"
	"github.com/mcpmount/mcpmount/sse"
)

// Park has the stream write to the connection its response w came on,
// taken over from net/http, under the stream's lock. If the stream is
// ready (readyToParkLocked), take takes the connection over and returns
// the writer on it, or nil when it could not (nothing changes then); with
// end set, the stream is detached at once (Shutdown passed it over while
// it was being taken over). It reports whether the stream was parked.
func (s *Stream) Park(w http.ResponseWriter, take func() (pw *wire.ParkedWriter, end bool)) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.readyToParkLocked(w) {
		return false
	}
	pw, end := take()
	if pw == nil {
		return false
	}
	s.resp.w, s.resp.sw = pw, sse.NewWriter(pw)
	if end {
		s.detachLocked()
	}
	return true
}

// readyToParkLocked opens the stream if it is not open yet and flushes what
// waits in net/http's buffer, which the hijack would drop (notifications
// deferred by NotificationFlushDelay, on a resumed call stream between
// attach and park). It reports false when the stream cannot be parked: it
// ended, w is no longer its response, its client takes no SSE, middleware
// compresses it, or a write failed (the client is gone).
func (s *Stream) readyToParkLocked(w http.ResponseWriter) bool {
	if s.ended || s.resp.w != w || !s.accept.SSE {
		return false
	}
	if !s.resp.open {
		if s.openLocked(); s.resp.w != w {
			return false
		}
	}
	if w.Header().Get("Content-Encoding") != "" {
		return false // set when the headers went out
	}
	s.flushPendingLocked()
	return s.resp.w == w
}
