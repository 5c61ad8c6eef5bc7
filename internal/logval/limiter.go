package logval

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Limiter spaces the log lines of each kind: it lets through at most burst
// lines of a kind in each period of length every, counts the lines it
// holds back, and adds that count, as the attribute "suppressed", to the
// next line of the kind it lets through. A kind is a fixed message, never
// a value from a request, so the set of kinds stays small. A Limiter is
// owned by the value that logs; it is safe for concurrent use.
type Limiter struct {
	every time.Duration
	burst int
	now   func() time.Time

	mu    sync.Mutex
	kinds map[string]*window
}

// window is one kind's current period.
type window struct {
	start      time.Time
	lines      int // let through since start
	suppressed int // held back since the last line let through
}

// NewLimiter returns a Limiter letting through burst lines of a kind per
// every (at least one), reading the time from now (nil means time.Now).
func NewLimiter(every time.Duration, burst int, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{every: every, burst: max(burst, 1), now: now, kinds: make(map[string]*window)}
}

// Allow reports whether a line of kind may be written now, and, if so, how
// many lines of kind were held back since the last one let through.
func (l *Limiter) Allow(kind string) (ok bool, suppressed int) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w := l.kinds[kind]
	switch {
	case w == nil:
		l.kinds[kind] = &window{start: now, lines: 1}
		return true, 0
	case now.Sub(w.start) >= l.every || now.Before(w.start):
		// A new period; a clock stepped back starts one too, rather than
		// silencing the kind until it catches up.
		w.start, w.lines = now, 0
	case w.lines >= l.burst:
		w.suppressed++
		return false, 0
	}
	w.lines++
	suppressed, w.suppressed = w.suppressed, 0
	return true, suppressed
}

// Log writes a record with msg and args through logger at level, if the
// logger takes that level and l lets a line of kind msg through now; it
// adds "suppressed" when lines of the kind were held back. A level the
// logger ignores does not use up the kind's share.
func (l *Limiter) Log(ctx context.Context, logger *slog.Logger, level slog.Level, msg string, args ...any) {
	if !logger.Enabled(ctx, level) {
		return
	}
	ok, suppressed := l.Allow(msg)
	if !ok {
		return
	}
	if suppressed > 0 {
		args = append(args, slog.Int("suppressed", suppressed))
	}
	logger.Log(ctx, level, msg, args...)
}
