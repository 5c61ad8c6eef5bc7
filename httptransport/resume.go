package httptransport

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/mcpmount/mcpmount/sse"
)

// streamFor picks the stream a GET attaches to: the standalone stream for a
// plain GET, or the stream a Last-Event-ID names ("<stream>_<index>"),
// which must belong to this session (digest 1.6). It returns a nil stream
// when the named stream has ended and only its stored events remain.
func (h *Handler) streamFor(ls *liveSession, lastID string) (st *stream, after int, replay bool, herr *httpError) {
	if lastID == "" {
		return ls.standalone, 0, false, nil
	}
	if h.cfg.events == nil {
		return nil, 0, false, errUnknownEventID
	}
	streamID, index, ok := parseEventID(lastID)
	if !ok {
		return nil, 0, false, errUnknownEventID
	}
	if streamID == ls.standalone.id {
		return ls.standalone, index, true, nil
	}
	ls.mu.Lock()
	st = ls.streams[streamID]
	ls.mu.Unlock()
	return st, index, true, nil
}

func parseEventID(id string) (stream string, index int, ok bool) {
	stream, n, found := strings.Cut(id, "_")
	if !found || stream == "" {
		return "", 0, false
	}
	index, err := strconv.Atoi(n)
	if err != nil || index < 0 {
		return "", 0, false
	}
	return stream, index, true
}

// replayEnded answers a resuming GET for a stream that has ended: its stored
// events, then the end of the response.
func (h *Handler) replayEnded(w http.ResponseWriter, r *http.Request, ls *liveSession, lastID string) {
	streamID, index, _ := parseEventID(lastID)
	events, err := h.cfg.events.After(r.Context(), ls.id, streamID, index)
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
