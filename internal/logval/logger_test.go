package logval

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestLoggerSpacesInfoAndUp: a flood of one kind of Info, Warn or Error
// line writes Burst lines of it; other kinds keep their own share, and
// Debug lines are all written.
func TestLoggerSpacesInfoAndUp(t *testing.T) {
	var buf bytes.Buffer
	l := NewLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	for i := range 1000 {
		l.Warn("w", "i", i)
		l.Error("e", "i", i)
		l.Info("i", "i", i)
		if i < 20 {
			l.Debug("d", "i", i)
		}
	}
	counts := map[string]int{}
	for line := range strings.SplitSeq(strings.TrimSpace(buf.String()), "\n") {
		_, msg, _ := strings.Cut(line, " msg=")
		msg, _, _ = strings.Cut(msg, " ")
		counts[msg]++
	}
	for kind, want := range map[string]int{"w": Burst, "e": Burst, "i": Burst, "d": 20} {
		if counts[kind] != want {
			t.Errorf("kind %s: %d lines, want %d", kind, counts[kind], want)
		}
	}
	if l.Base() == nil || NewLogger(nil).Base() != slog.Default() {
		t.Error("Base: nil, or a nil base not slog.Default()")
	}
}
