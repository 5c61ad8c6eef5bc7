package httptransport

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/sse"
)

// streamFor picks the stream a GET attaches to: the standalone stream for a
// plain GET, or the stream a Last-Event-ID names ("<stream>_<index>"),
// which must belong to this session (spec 2025-11-25 basic/transports#resumability-and-redelivery). It returns a nil stream
// when the named stream has ended and only its stored events remain.
//
// A Last-Event-ID from another instance's standalone stream (a client
// moved by the load balancer) attaches to this instance's standalone
// stream, carrying first the other stream's stored events after it
// (carried), so the client misses nothing that the shared EventStore
// kept. If they are gone the GET stream still opens: it is the session's
// only stream, and losing it would cost more than the events.
func (h *Handler) streamFor(r *http.Request, ls *liveSession, lastID string) (st *output.Stream, after int, replay bool, carried []sse.Event, herr *httpError) {
	if lastID == "" {
		return ls.standalone, 0, false, nil, nil
	}
	if h.cfg.events == nil {
		return nil, 0, false, nil, errUnknownEventID
	}
	streamID, index, ok := parseEventID(lastID)
	if !ok || output.IsCallRecord(streamID) {
		return nil, 0, false, nil, errUnknownEventID
	}
	if streamID == ls.standalone.ID() {
		return ls.standalone, index, true, nil, nil
	}
	if h.isStandaloneID(streamID) {
		ctx, cancel := h.eventsCtx(r.Context())
		events, err := h.cfg.events.After(ctx, ls.id, streamID, index)
		cancel()
		if err != nil {
			h.cfg.logger.Debug("mcp: another instance's GET stream events are gone", "session", logval.String(ls.id), "stream", logval.String(streamID), "error", logval.Err(err))
		}
		for i, data := range events {
			if len(data) > 0 {
				carried = append(carried, sse.Event{ID: streamID + "_" + strconv.Itoa(index+1+i), HasID: true, Data: data})
			}
		}
		return ls.standalone, 0, false, carried, nil
	}
	ls.mu.Lock()
	st = ls.streams[streamID]
	ls.mu.Unlock()
	return st, index, true, nil, nil
}

// isStandaloneID reports whether a stream id is the standalone stream of
// some instance's copy of the session: a tag like a liveSession's followed
// by "0" (call streams count from 1), or, from instances of an earlier
// release (a rolling upgrade), an instance tag followed by "0". Call stream
// ids of that earlier release (an instance tag and a stream number) are as
// long as a copy's standalone id from stream 10000 on: a copy tag holds a
// letter (newCopyTag), a stream number none.
func (h *Handler) isStandaloneID(id string) bool {
	n := len(id)
	switch n {
	case len(h.tag) + copyTagLen + 1:
		return id[n-1] == '0' && !allDigits(id[len(h.tag):n-1])
	case len(h.tag) + 1:
		return id[n-1] == '0'
	}
	return false
}

// copyTagLen is the length of the part of a liveSession's tag that tells
// one copy of a session on an instance from another.
const copyTagLen = 4

// newCopyTag returns a random copy tag, never all digits (isStandaloneID).
func newCopyTag() string {
	for {
		if t := newSessionID()[:copyTagLen]; !allDigits(t) {
			return t
		}
	}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func parseEventID(id string) (stream string, index int, ok bool) {
	stream, n, found := strings.Cut(id, "_")
	if !found || stream == "" {
		return "", 0, false
	}
	// Only indexes as the server writes them: digits, no sign, no leading
	// zero (Atoi would take "+1" and "01").
	if n == "" || !allDigits(n) || (len(n) > 1 && n[0] == '0') {
		return "", 0, false
	}
	index, err := strconv.Atoi(n)
	if err != nil {
		return "", 0, false
	}
	return stream, index, true
}

// replayEnded answers a resuming GET for a stream that has ended: its stored
// events, then the end of the response.
func (h *Handler) replayEnded(w http.ResponseWriter, r *http.Request, ls *liveSession, lastID string) {
	streamID, index, _ := parseEventID(lastID)
	ctx, cancel := h.eventsCtx(r.Context())
	events, err := h.cfg.events.After(ctx, ls.id, streamID, index)
	cancel()
	if err != nil {
		writeRefusal(w, noID, errUnknownEventID)
		return
	}
	sse.SetHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	sw := sse.NewWriter(w)
	for i, data := range events {
		if len(data) == 0 {
			continue
		}
		id := streamID + "_" + strconv.Itoa(index+1+i)
		if sw.WriteEvent(sse.Event{ID: id, HasID: true, Data: data}) != nil {
			return
		}
	}
}
