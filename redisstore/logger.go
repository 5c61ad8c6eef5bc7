package redisstore

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// ClientLogger takes go-redis's own log lines, which it writes to stderr
// by default, one per event: with Redis down, a "failed to dial" line for
// every command the store sends. Through a ClientLogger each kind of line
// (its format, which the record's message is) is written to the logger as
// a Warn at most 10 a minute, the next one let through saying how many
// were "suppressed", the line itself under "line", quoted and cut to 256
// bytes. The store logs nothing of its own: its errors reach the
// transport, which logs them alike.
//
// go-redis has one logger for the whole process, so the store does not
// set it; set it once, in main, before making the clients:
//
//	redis.SetLogger(redisstore.NewClientLogger(logger))
type ClientLogger struct{ log *logval.Logger }

// NewClientLogger returns a ClientLogger writing to logger; nil means
// slog.Default().
func NewClientLogger(logger *slog.Logger) *ClientLogger {
	return &ClientLogger{log: logval.NewLogger(logger)}
}

// Printf implements go-redis's logging interface (redis.SetLogger): it
// writes one line of the kind format.
func (l *ClientLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.Log(ctx, slog.LevelWarn, strings.TrimSpace(format), "line", logval.Bound(fmt.Sprintf(format, v...), logval.MaxErrLen))
}
