package wire

import (
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/sse"
)

// StuckWrite is how long a write must have been under way before a
// cancelled call ends it (Guard.Abort): a write to a client that reads
// takes microseconds, so one older than this waits for a client that
// stopped reading.
const StuckWrite = 50 * time.Millisecond

// Guard lets a call that is cancelled (notifications/cancelled, the
// end of its session, Shutdown, a dropped 2026-07-28 request) end the write
// its stream is blocked in, to a client that stopped reading, at once
// rather than at the per-write deadline (Options.WriteTimeout): the
// engine's Send, and whatever waits on the stream's lock, return then. It
// has a lock of its own, which a write holds only to note that it begins
// and ends, so that Abort never waits for the write it ends.
type Guard struct {
	mu    sync.Mutex
	sw    *sse.Writer // the response a write is under way on; nil when none
	since time.Time
}

// Begin notes a write on sw; End notes that it is over.
func (g *Guard) Begin(sw *sse.Writer) {
	g.mu.Lock()
	g.sw, g.since = sw, time.Now()
	g.mu.Unlock()
}

// End notes that the write Begin noted is over.
func (g *Guard) End() {
	g.mu.Lock()
	g.sw = nil
	g.mu.Unlock()
}

// Abort ends the write under way, once it has been under way for
// StuckWrite (checking again then, if it is younger), by moving its
// response's write deadline to now. The response is still the writer's:
// it is detached only under the stream's lock, which the write holds.
func (g *Guard) Abort() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sw == nil {
		return
	}
	if wait := StuckWrite - time.Since(g.since); wait > 0 {
		time.AfterFunc(wait, g.Abort)
		return
	}
	_ = g.sw.SetWriteDeadline(time.Now())
}
