package gosdk

import (
	"context"
	"log/slog"
)

// connectionLogs are the messages the SDK logs at Info level for each
// connection it serves: as it connects, once connected, once closed.
var connectionLogs = map[string]bool{
	"server connecting":           true,
	"server session connected":    true,
	"server session disconnected": true,
}

// FilterConnectionLogs returns a handler that passes everything to h
// except the three Info lines the SDK logs for each connection it serves
// ("server connecting", "server session connected", "server session
// disconnected"). The engine runs each call on a connection of its own, so
// an *mcp.Server whose ServerOptions.Logger logs at Info writes those three
// lines for every call; give it slog.New(FilterConnectionLogs(h)) to keep
// its other logs and drop them:
//
//	logger := slog.New(gosdk.FilterConnectionLogs(slog.NewJSONHandler(os.Stderr, nil)))
//	server := mcp.NewServer(impl, &mcp.ServerOptions{Logger: logger})
//
// The same lines at another level, or with other messages, pass.
func FilterConnectionLogs(h slog.Handler) slog.Handler { return connFilter{h} }

type connFilter struct{ next slog.Handler }

func (f connFilter) Enabled(ctx context.Context, l slog.Level) bool { return f.next.Enabled(ctx, l) }

func (f connFilter) Handle(ctx context.Context, r slog.Record) error {
	if r.Level == slog.LevelInfo && connectionLogs[r.Message] {
		return nil
	}
	return f.next.Handle(ctx, r)
}

func (f connFilter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return connFilter{f.next.WithAttrs(attrs)}
}

func (f connFilter) WithGroup(name string) slog.Handler { return connFilter{f.next.WithGroup(name)} }
