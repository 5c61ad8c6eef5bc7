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
// another request adopts meanwhile); then every third of a period.
func (h *Handler) startLiveness(ctx context.Context) {
	w := h.watch
	if w.store == nil || h.closing.Load() {
		return
	}
	if w.renewals.start(h.ctx, w.period/3, func(ctx context.Context, _ time.Time) { h.renew(ctx) }) {
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
// instance lives.
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
	}
	return !alive
}

// instanceTagLen is the length of an instance's tag (Handler.tag), which
// begins the tags of its sessions' copies, and so its stream ids, its
// server requests' ids and the ids of the sessions it creates.
const instanceTagLen = 6

// instanceOf returns the tag of the instance a stream id belongs to, or
// "" when id is too short to hold one.
func instanceOf(id string) string {
	if len(id) < instanceTagLen {
		return ""
	}
	return id[:instanceTagLen]
}
