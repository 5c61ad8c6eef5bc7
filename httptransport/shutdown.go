package httptransport

import (
	"context"
	"sync"
	"time"
)

// Shutdown stops accepting requests, ends every 2026-07-28 listen stream
// with its final result, ends the streams of 2025-era and 2024-11-05
// sessions, and waits for calls in flight to finish. When ctx is done
// first, the remaining calls are cancelled (their clients get a -32000
// "server shutting down" error, to send them again; a 2024-11-05 call's on
// its session's event stream, which stays open for its calls' answers
// until then), the connections of the
// streams taken over from net/http (see DisableHijack) closed, and ctx's
// error returned, once the sessions have ended here and the session store
// is closed. A write blocked on a client that stopped reading, on a stream
// not taken over (HTTP/2, say), still holds that stream until the write's
// deadline (WriteTimeout).
func (h *Handler) Shutdown(ctx context.Context) error {
	if !h.closing.CompareAndSwap(false, true) {
		return nil
	}
	close(h.shutdownC)
	// Past ctx, what is left is cancelled at once, also while a stream is
	// being ended below: an EventStore call under the stream's lock (a
	// remote store that stopped answering) then ends with its context, and
	// a write blocked on a stalled client (which holds its stream's lock
	// for up to WriteTimeout) fails with its connection.
	h.mu.Lock()
	sessions := make([]*liveSession, 0, len(h.live))
	for _, s := range h.live {
		sessions = append(sessions, s)
	}
	h.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		h.cancel()
		answerLegacyCalls(sessions, legacyAnswerGrace)
		h.abortParked()
	})
	defer stop()
	h.endParked(nil)
	h.endListens(func(*Call) bool { return true })
	for _, s := range sessions {
		s.closeStreams()
	}
	done := h.inflight.close()
	h.janitor.halt()
	select {
	case <-done:
	case <-ctx.Done():
	}
	err := ctx.Err() // also when ending the streams took past it
	h.cancel()       // cancels what is left, ends sessions on this instance
	for _, s := range sessions {
		s.end(context.WithoutCancel(ctx), false)
	}
	// Renewed until now: the calls Shutdown waited for were this
	// instance's to answer, not another's.
	h.watch.renewals.halt()
	if c, ok := h.sessions.(interface{ Close() error }); ok {
		_ = c.Close()
	}
	return err
}

// legacyAnswerGrace is how long Shutdown, past its deadline, lets
// 2024-11-05 event streams carry the -32000 answers of the calls it
// abandons before it closes the connections it took over: a write to a
// client that reads takes microseconds, one to a client that stopped
// reading would hold the stream until its write deadline.
const legacyAnswerGrace = 100 * time.Millisecond

// answerLegacyCalls ends the calls in flight of the 2024-11-05 sessions
// among sessions, each of which, the handler closing, writes its -32000
// answer on its session's event stream (output.Relay.Cut), and waits for
// those writes, or grace.
func answerLegacyCalls(sessions []*liveSession, grace time.Duration) {
	var wg sync.WaitGroup
	for _, ls := range sessions {
		if !ls.sess.Legacy {
			continue
		}
		ls.mu.Lock()
		for r := range ls.relays {
			wg.Go(r.Cut)
		}
		ls.mu.Unlock()
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	}
}

// closeStreams ends the standalone stream so its GET returns; calls go on.
// A 2024-11-05 session's event stream carries its calls' answers (spec
// https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse),
// so it ends once the calls in flight have been answered, or with the
// session (whose end answers them).
func (ls *liveSession) closeStreams() {
	var answers []<-chan struct{}
	ls.mu.Lock()
	for r := range ls.relays {
		if ls.sess.Legacy {
			answers = append(answers, r.Done())
		}
	}
	ls.mu.Unlock()
	if len(answers) == 0 {
		ls.standalone.Cut()
		return
	}
	go func() {
		for _, done := range answers {
			<-done
		}
		ls.standalone.Cut()
	}()
}
