package otelmcp

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mcpmount/mcpmount/httptransport"
)

// Observe implements httptransport.Observer: it counts sessions, held
// streams, refusals, drops, evictions and relay failures, and records
// each session's duration as it ends.
func (o *Observer) Observe(ctx context.Context, e httptransport.Event) {
	switch e.Kind {
	case httptransport.EventSessionOpened:
		o.sessions.Store(e.SessionID, sessionStart{at: time.Now(), version: e.Version, transport: e.Transport})
		o.sessionsActive.Add(ctx, 1, metric.WithAttributes(keyTransport.String(transportName(e.Transport))))
	case httptransport.EventSessionClosed:
		v, ok := o.sessions.LoadAndDelete(e.SessionID)
		if !ok {
			return // never opened here (the engine refused it)
		}
		s := v.(sessionStart)
		o.sessionsActive.Add(ctx, -1, metric.WithAttributes(keyTransport.String(transportName(s.transport))))
		attrs := networkAttrs(make([]attribute.KeyValue, 0, 4), "")
		if s.version != "" {
			attrs = append(attrs, keyMCPVersion.String(s.version))
		}
		o.sessionDuration.Record(ctx, time.Since(s.at).Seconds(), attrs...)
	case httptransport.EventStreamOpened:
		o.streamsActive.Add(ctx, 1, metric.WithAttributes(keyStreamKind.String(string(e.Stream))))
	case httptransport.EventStreamClosed:
		o.streamsActive.Add(ctx, -1, metric.WithAttributes(keyStreamKind.String(string(e.Stream))))
	case httptransport.EventRefused:
		attrs := []attribute.KeyValue{keyHTTPStatus.Int(e.Status), keyReason.String(e.Reason)}
		if e.Name != "" {
			attrs = append(attrs, keyToolName.String(e.Name))
		}
		o.refusals.Add(ctx, 1, metric.WithAttributes(attrs...))
	case httptransport.EventDropped:
		o.dropped.Add(ctx, 1, metric.WithAttributes(keyReason.String(e.Reason)))
	case httptransport.EventEvicted:
		o.evicted.Add(ctx, 1)
	case httptransport.EventRelayFailed:
		o.relayFailures.Add(ctx, 1)
	}
}
