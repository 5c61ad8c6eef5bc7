package logval

import (
	"context"
	"log/slog"
	"time"
)

// Every and Burst are how often the lines of one kind may be written, in
// every module: at most Burst in each period of Every (10 a minute).
const (
	Every = time.Minute
	Burst = 10
)

// Logger is the one way mcpmount's packages write their logs: a
// *slog.Logger whose Info, Warn and Error lines are spaced per kind (the
// message, fixed text) by a Limiter of Burst lines per Every, so that no
// flood, of requests, of a child's output or of a failing dependency,
// becomes a flood of lines. The next line of a kind let through carries
// the count held back as "suppressed". Debug lines, which an operator asks
// for, are all written. Values from a request, a child process or a peer
// go in through String, Err or Bound. A Logger is owned by the value that
// logs; it is safe for concurrent use.
type Logger struct {
	base  *slog.Logger
	limit *Limiter
}

// NewLogger returns a Logger writing to base; nil means slog.Default().
func NewLogger(base *slog.Logger) *Logger {
	if base == nil {
		base = slog.Default()
	}
	return &Logger{base: base, limit: NewLimiter(Every, Burst, nil)}
}

// Debug writes a Debug line, unlimited.
func (l *Logger) Debug(msg string, args ...any) { l.log(slog.LevelDebug, msg, args) }

// Info writes an Info line of kind msg, as the kind's limit allows.
func (l *Logger) Info(msg string, args ...any) { l.log(slog.LevelInfo, msg, args) }

// Warn writes a Warn line of kind msg, as the kind's limit allows.
func (l *Logger) Warn(msg string, args ...any) { l.log(slog.LevelWarn, msg, args) }

// Error writes an Error line of kind msg, as the kind's limit allows.
func (l *Logger) Error(msg string, args ...any) { l.log(slog.LevelError, msg, args) }

func (l *Logger) log(level slog.Level, msg string, args []any) {
	l.Log(context.Background(), level, msg, args...)
}

// Log writes a line of kind msg at level with ctx (for a handler that
// reads values from it, a trace id say), as the kind's limit allows when
// level is Info or above.
func (l *Logger) Log(ctx context.Context, level slog.Level, msg string, args ...any) {
	if level < slog.LevelInfo {
		l.base.Log(ctx, level, msg, args...)
		return
	}
	l.limit.Log(ctx, l.base, level, msg, args...)
}

// Base returns the logger l writes to, for output that has a bound of its
// own (a child process's stderr, passed on by bytes a second).
func (l *Logger) Base() *slog.Logger { return l.base }
