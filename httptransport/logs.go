package httptransport

import (
	"context"
	"log/slog"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// Warnings and errors a request can cause (a store that is down, a
// panicking engine) are written at most logBurst times per logEvery for
// each kind, so a flood of requests is not a flood of log lines; the next
// line let through says how many were "suppressed". Values from a request
// (session and stream ids, method names) and errors that may hold them go
// through logval: bounded and quoted.
const (
	logEvery = logval.Every
	logBurst = logval.Burst
)

// warn logs a warning of kind msg, as h.logs allows.
func (h *Handler) warn(msg string, args ...any) {
	h.logs.Log(context.Background(), h.cfg.logger, slog.LevelWarn, msg, args...)
}

// logError logs an error of kind msg, as h.logs allows.
func (h *Handler) logError(msg string, args ...any) {
	h.logs.Log(context.Background(), h.cfg.logger, slog.LevelError, msg, args...)
}
