package soak

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// TestLoadAgainstEngines: every kind of client of the soak's load does
// what the transport's rules say against each engine in memory, without
// an error (a short load, served in this process).
func TestLoadAgainstEngines(t *testing.T) {
	for _, target := range []string{TargetGoSDK, TargetMCPGo} {
		t.Run(target, func(t *testing.T) {
			tg, err := startTarget(ServeConfig{Target: target, IdleTimeout: time.Second}, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			defer tg.stop()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if err := warm(ctx, tg.url); err != nil {
				t.Fatal(err)
			}
			flip := time.AfterFunc(time.Second, tg.flip) // a list change reaches the listens and GET streams
			defer flip.Stop()
			tl := &tally{ok: map[string]int{}, failed: map[string]int{}}
			DefaultLoad.run(ctx, tg.url, tl)
			if tl.errors() > 0 || len(tl.ok) < 6 {
				t.Errorf("load: %s", tl)
			}
		})
	}
}
