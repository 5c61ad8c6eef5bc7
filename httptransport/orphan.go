package httptransport

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// What an instance does for a call another instance was running, when the
// client resumes the call's stream here (spec
// https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#resumability-and-redelivery)
// with a shared EventStore and a store that keeps liveness records
// (Liveness): it replays the stream's stored events, then follows the
// stream in the store, a third of a period apart, until the call's answer
// is there, or the instance running the call has stopped renewing its
// liveness record. Then the call is answered here with errInstanceStopped,
// which is stored as the stream's next event: a client resuming again, on
// any instance, finds it, and another instance answering the same call
// finds it taken.
//
// Without a CallRecord (the stream's instance is of an earlier release, or
// the session's events overflowed) the request id is unknown: the stored
// events are replayed and the response ends, as before.

// errInstanceStopped answers a call whose instance stopped before
// answering it: -32000, the implementation-defined server error (JSON-RPC
// 2.0 section 5.1), as for a call Shutdown abandons; unlike that one, the
// call may have done part or all of its work before its instance stopped.
var errInstanceStopped = jsonrpc.Errorf(jsonrpc.CodeServerError, "the instance serving this call stopped: the call's outcome is unknown")

// RecordsCalls reports whether the session's call streams keep the id of
// the call they answer beside their events, for another instance to answer
// it should this one stop (output.Session): with a shared store whose
// liveness records are kept, and an event store of the user's (shared).
func (ls *liveSession) RecordsCalls() bool {
	return ls.shared() && ls.h.watch.store != nil && !ls.h.cfg.ownEvents
}

// resumeAbsent answers a GET resuming a stream that no copy of the session
// here holds (streamFor): another instance's call stream is followed
// (followCall) when liveness records are kept; any other is replayed as
// stored (replayEnded).
func (h *Handler) resumeAbsent(w http.ResponseWriter, r *http.Request, ls *liveSession, lastID string) {
	stream, index, _ := parseEventID(lastID)
	if instance := instanceOf(stream); h.watch.store != nil && instance != "" && instance != h.tag {
		h.followCall(w, r, ls, stream, index, instance)
		return
	}
	h.replayEnded(w, r, ls, lastID)
}

// followCall answers a GET resuming the stream of a call that instance
// was running, from after the event index; see the top of this file.
func (h *Handler) followCall(w http.ResponseWriter, r *http.Request, ls *liveSession, stream string, index int, instance string) {
	ctx := r.Context()
	events, err := h.storedAfter(ctx, ls.id, stream, index)
	if err != nil {
		writeRefusal(w, noID, errUnknownEventID)
		return
	}
	id, recorded := h.recordedCall(ctx, ls.id, stream)
	owner := h.streams.owner(ctx)
	if !h.streams.take(owner, 1) {
		refuseOverQuota(w, errTooManyStreams)
		return
	}
	defer h.streams.give(owner, 1)
	defer h.observeStream(ctx, StreamGet)()
	f := newFollower(h, w, ls.id, stream, index)
	if answered, ok := f.write(events); answered || !ok || !recorded {
		return
	}
	ls.mu.Lock()
	ls.active++ // not idle while a client waits here
	ls.mu.Unlock()
	defer func() {
		ls.mu.Lock()
		ls.active--
		ls.lastUsed = time.Now()
		ls.mu.Unlock()
	}()
	h.awaitAnswer(r, ls, f, id, instance)
}

// awaitAnswer writes the events the stream's instance adds, until one is
// the call's answer, or answers the call with errInstanceStopped once the
// instance has stopped. It returns early when the client leaves, the
// session or the handler ends, or the GET's time is up (streamLimit): the
// client resumes again.
func (h *Handler) awaitAnswer(r *http.Request, ls *liveSession, f *follower, id jsonrpc.ID, instance string) {
	ctx := r.Context()
	tick := time.NewTicker(h.watch.period / 3)
	defer tick.Stop()
	var limit <-chan time.Time
	if d, ok := h.streamLimit(r); ok {
		t := time.NewTimer(d)
		defer t.Stop()
		limit = t.C
	}
	for {
		if h.instanceStopped(ctx, instance) {
			f.answer(ctx, id)
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		case <-ls.ctx.Done():
			return
		case <-h.shutdownC:
			return
		case <-h.watchServer(r).downC():
			return
		case <-limit:
			return
		}
		events, err := h.storedAfter(ctx, ls.id, f.stream, f.last)
		if err != nil {
			return // gone from the store: the client's next resume is refused
		}
		if answered, ok := f.write(events); answered || !ok {
			return
		}
		f.keepAlive()
	}
}

// storedAfter is EventStore.After, bounded by the store timeout.
func (h *Handler) storedAfter(parent context.Context, session, stream string, index int) ([][]byte, error) {
	ctx, cancel := h.eventsCtx(parent)
	defer cancel()
	return h.cfg.events.After(ctx, session, stream, index)
}

// recordedCall reads the id of the request a call stream answers, from its
// CallRecord.
func (h *Handler) recordedCall(ctx context.Context, session, stream string) (jsonrpc.ID, bool) {
	events, err := h.storedAfter(ctx, session, output.CallRecord(stream), 0)
	if err != nil || len(events) == 0 {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.ParseID(events[0])
	return id, err == nil && id.IsValid()
}

// follower writes another instance's call stream, as the event store
// holds it, to a resuming GET.
type follower struct {
	h       *Handler
	sw      *sse.Writer
	session string
	stream  string
	last    int       // index of the last event written, or resumed after
	wrote   time.Time // when something was last written
}

// newFollower opens the SSE response of a GET resuming stream after index.
func newFollower(h *Handler, w http.ResponseWriter, session, stream string, index int) *follower {
	sse.SetHeaders(w.Header())
	w.WriteHeader(http.StatusOK)
	f := &follower{h: h, sw: sse.NewWriter(w), session: session, stream: stream, last: index}
	_ = f.sw.SetWriteDeadline(time.Time{}) // the server's WriteTimeout: a stream outlives it
	f.keepAlive()                          // the headers go out now, whatever follows
	return f
}

// write writes the stream's events after f.last, in order, with their ids.
// It reports whether one of them is a response (the call's answer: a call
// stream's last event), and whether the client took them.
func (f *follower) write(events [][]byte) (answered, ok bool) {
	for _, data := range events {
		f.last++
		if len(data) == 0 {
			continue // a priming event, or a server-side disconnect
		}
		if !f.send(sse.Event{ID: f.stream + "_" + strconv.Itoa(f.last), HasID: true, Data: data}) {
			return answered, false
		}
		if m, err := jsonrpc.Decode(data); err == nil && m.IsResponse() {
			answered = true
		}
	}
	return answered, true
}

// answer answers the call id with errInstanceStopped, stored as the
// stream's next event. If the store refuses it (another instance answered
// first, or the call's instance wrote more as it stopped), what the store
// holds now goes out first, and the error after it unless that was the
// answer; stored if the store takes it then, else without an id.
func (f *follower) answer(ctx context.Context, id jsonrpc.ID) {
	body := output.ErrorBody(id, errInstanceStopped)
	for range 2 {
		sctx, cancel := f.h.eventsCtx(ctx)
		err := f.h.cfg.events.Append(sctx, f.session, f.stream, f.last+1, body)
		cancel()
		if err == nil {
			f.last++
			f.send(sse.Event{ID: f.stream + "_" + strconv.Itoa(f.last), HasID: true, Data: body})
			return
		}
		events, err := f.h.storedAfter(ctx, f.session, f.stream, f.last)
		if err != nil {
			break
		}
		if answered, ok := f.write(events); answered || !ok {
			return
		}
	}
	f.send(sse.Event{Data: body})
}

// keepAlive writes a comment when nothing was written for the keep-alive
// interval (Options.KeepAlive), or ever.
func (f *follower) keepAlive() {
	if !f.wrote.IsZero() && (f.h.cfg.keepAlive <= 0 || time.Since(f.wrote) < f.h.cfg.keepAlive) {
		return
	}
	f.send(sse.Event{IsComment: true})
}

// send writes e under the per-write deadline (Options.WriteTimeout) and
// reports whether the client took it.
func (f *follower) send(e sse.Event) bool {
	if d := f.h.cfg.writeTimeout; d > 0 {
		_ = f.sw.SetWriteDeadline(time.Now().Add(d))
		defer func() { _ = f.sw.SetWriteDeadline(time.Time{}) }()
	}
	f.wrote = time.Now()
	return f.sw.WriteEvent(e) == nil
}
