package httptransport

import (
	"context"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// How an instance sharing a store that implements Liveness keeps its own
// liveness record and judges the other instances' (Options.LivenessPeriod).
//
// The record lasts a period and is renewed every third of one, so a live
// instance's record outlives two renewals that fail or come late. Another
// instance reads a record only when it needs a verdict (a client resumed a
// stream of that instance's, or POSTed for a 2024-11-05 session it held,
// or a session's GET stream is there), and keeps the verdict for a third
// of a period. An instance that stops at time t renewed last after
// t - period/3, so its record is gone by t + period; one that waits on it
// asks every third of a period, and may be answered from a verdict as old
// as that, so it knows by t + 5/3 period: within twice the period.

// instanceWatch keeps this instance's liveness record and the verdicts on
// other instances' records.
type instanceWatch struct {
	store    Liveness // nil: liveness is off (no shared store, or it lacks Liveness)
	self     string   // this instance's tag
	period   time.Duration
	renewals periodic // renews the record, from the first session on

	mu       sync.Mutex
	verdicts map[string]verdict // by instance tag
}

// verdict is what an instance's liveness record said, and when.
type verdict struct {
	stopped bool
	at      time.Time
}

// maxVerdicts bounds the verdicts kept: past it they are all dropped, and
// read again from the store as they are needed.
const maxVerdicts = 1024

func newInstanceWatch(store Liveness, self string, period time.Duration) *instanceWatch {
	return &instanceWatch{store: store, self: self, period: period, verdicts: make(map[string]verdict)}
}

// startLiveness starts, once, keeping this instance's liveness record:
// the first renewal before it returns, so that no stream of a session
// served here is visible to a client before the record is (but for one
// another request adopts meanwhile); then every third of a period, with
// a look at the instances holding the GET streams of the sessions served
// here (watchStreamHolders).
func (h *Handler) startLiveness(ctx context.Context) {
	w := h.watch
	if w.store == nil || h.closing.Load() {
		return
	}
	if w.renewals.start(h.ctx, w.period/3, func(ctx context.Context, _ time.Time) {
		h.renew(ctx)
		h.watchStreamHolders(ctx)
	}) {
		h.renew(ctx)
	}
}

// renew renews this instance's liveness record; a failure is logged (the
// record lasts two more renewals).
func (h *Handler) renew(ctx context.Context) {
	var err error
	h.withStore(ctx, func(ctx context.Context) { err = h.watch.store.Renew(ctx, h.watch.self, h.watch.period) })
	if err != nil && ctx.Err() == nil {
		h.warn("mcp: renewing this instance's liveness record failed; other instances take it for stopped once it has failed for a whole LivenessPeriod", "error", logval.Err(err))
	}
}

// instanceStopped reports whether the instance tagged instance has stopped
// renewing its liveness record. A verdict at most a third of a period old
// stands; a store that cannot tell (it fails) is taken as saying the
// instance lives. The first time an instance is found stopped, the
// sessions here stop forwarding messages to the GET streams it held.
func (h *Handler) instanceStopped(ctx context.Context, instance string) bool {
	w := h.watch
	if w.store == nil || instance == w.self {
		return false
	}
	now := time.Now()
	w.mu.Lock()
	v, known := w.verdicts[instance]
	w.mu.Unlock()
	if known && now.Sub(v.at) < w.period/3 {
		return v.stopped
	}
	var alive bool
	var err error
	h.withStore(ctx, func(ctx context.Context) { alive, err = w.store.Alive(ctx, instance) })
	if err != nil {
		if ctx.Err() == nil {
			h.warn("mcp: reading another instance's liveness record failed", "instance", logval.String(instance), "error", logval.Err(err))
		}
		return false
	}
	w.mu.Lock()
	if len(w.verdicts) >= maxVerdicts {
		clear(w.verdicts)
	}
	w.verdicts[instance] = verdict{stopped: !alive, at: now}
	w.mu.Unlock()
	if !alive && (!known || !v.stopped) {
		h.warn("mcp: another instance stopped renewing its liveness record; answering for its calls", "instance", logval.String(instance))
		h.forgetStreamsOf(instance)
	}
	return !alive
}

// instanceTagLen is the length of an instance's tag (Handler.tag), which
// begins the tags of its sessions' copies, and so its stream ids, its
// server requests' ids and the ids of the sessions it creates.
const instanceTagLen = 6

// instanceOf returns the tag of the instance a stream id or copy tag
// belongs to, or "" when id is too short to hold one.
func instanceOf(id string) string {
	if len(id) < instanceTagLen {
		return ""
	}
	return id[:instanceTagLen]
}

// watchStreamHolders reads the liveness records of the instances holding,
// as last heard, the GET streams of the sessions served here, so that the
// sessions stop forwarding their messages to one that stopped
// (instanceStopped). Instances of a release that keeps no record are
// left alone (streamAtLive).
func (h *Handler) watchStreamHolders(ctx context.Context) {
	holders := make(map[string]bool)
	h.mu.Lock()
	for _, ls := range h.live {
		ls.mu.Lock()
		if ls.streamAtLive {
			holders[instanceOf(ls.streamAt)] = true
		}
		ls.mu.Unlock()
	}
	h.mu.Unlock()
	for instance := range holders {
		h.instanceStopped(ctx, instance)
	}
}

// forgetStreamsOf has the sessions served here stop forwarding their
// messages to the GET streams that instance, which stopped, held: they are
// kept here for the client's next GET, here or on another instance,
// which asks for them (sessionfollow.go).
func (h *Handler) forgetStreamsOf(instance string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ls := range h.live {
		ls.mu.Lock()
		if ls.streamAtLive && instanceOf(ls.streamAt) == instance {
			ls.streamAt, ls.streamAtLive = "", false
		}
		ls.mu.Unlock()
	}
}
