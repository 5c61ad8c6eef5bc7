package otelmcp

import (
	"log/slog"

	"go.opentelemetry.io/otel"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// ErrorHandler returns an otel.ErrorHandler that writes the errors the
// OpenTelemetry SDK reports (an exporter that fails, once for each batch
// of spans or export of metrics) to logger, nil meaning slog.Default(), as
// Error lines of one kind, at most 10 a minute, the next one let through
// saying how many were "suppressed", each error quoted and cut to 256
// bytes. The SDK's default handler writes every error to stderr: with the
// collector down, a line per batch, for as long as the spans flow. The
// Observer logs nothing of its own.
//
// The SDK has one error handler per process, so the Observer does not set
// it; set it once, in main:
//
//	otel.SetErrorHandler(otelmcp.ErrorHandler(logger))
func ErrorHandler(logger *slog.Logger) otel.ErrorHandler {
	log := logval.NewLogger(logger)
	return otel.ErrorHandlerFunc(func(err error) {
		log.Error("otelmcp: OpenTelemetry reported an error", "error", logval.Err(err))
	})
}
