package logval

import (
	"bytes"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clock is a time source the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time            { return c.t }
func (c *clock) advance(d time.Duration)   { c.t = c.t.Add(d) }
func newClock() *clock                     { return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }
func allow(l *Limiter, kind string) string { ok, n := l.Allow(kind); return fmtAllow(ok, n) }

func fmtAllow(ok bool, n int) string {
	if !ok {
		return "held"
	}
	return "ok+" + strconv.Itoa(n)
}

func TestLimiterBurstThenSuppressedCount(t *testing.T) {
	c := newClock()
	l := NewLimiter(time.Minute, 2, c.now)
	var got []string
	for range 5 {
		got = append(got, allow(l, "a"))
	}
	c.advance(59 * time.Second)
	got = append(got, allow(l, "a"))
	c.advance(time.Second)
	got = append(got, allow(l, "a"), allow(l, "a"), allow(l, "a"))
	want := "ok+0 ok+0 held held held held ok+4 ok+0 held"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got  %s\nwant %s", s, want)
	}
}

func TestLimiterKindsAreSeparate(t *testing.T) {
	c := newClock()
	l := NewLimiter(time.Second, 1, c.now)
	got := strings.Join([]string{allow(l, "a"), allow(l, "a"), allow(l, "b"), allow(l, "b")}, " ")
	if want := "ok+0 held ok+0 held"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// TestLimiterClockSteppedBack: a clock that goes back starts a new period
// instead of silencing the kind until it catches up.
func TestLimiterClockSteppedBack(t *testing.T) {
	c := newClock()
	l := NewLimiter(time.Minute, 1, c.now)
	first, second := allow(l, "a"), allow(l, "a")
	c.advance(-time.Hour)
	if got := strings.Join([]string{first, second, allow(l, "a")}, " "); got != "ok+0 held ok+1" {
		t.Errorf("got %s, want ok+0 held ok+1", got)
	}
}

func TestLimiterLog(t *testing.T) {
	c := newClock()
	l := NewLimiter(time.Second, 1, c.now)
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx := context.Background()
	for range 3 {
		l.Log(ctx, logger, slog.LevelDebug, "quiet") // not enabled: uses no share
		l.Log(ctx, logger, slog.LevelWarn, "store down", "session", String("s1"))
	}
	c.advance(time.Second)
	l.Log(ctx, logger, slog.LevelWarn, "store down", "session", String("s2"))
	l.Log(ctx, logger, slog.LevelInfo, "quiet")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), buf.String())
	}
	if strings.Contains(lines[0], "suppressed") || !strings.Contains(lines[1], "suppressed=2") || !strings.Contains(lines[1], `s2`) {
		t.Errorf("the line after the held ones does not count them:\n%s", buf.String())
	}
	if !strings.Contains(lines[2], "msg=quiet") || strings.Contains(lines[2], "suppressed") {
		t.Errorf("a disabled level used up the kind's share:\n%s", buf.String())
	}
}
