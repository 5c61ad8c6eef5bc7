package httptransport

import (
	"testing"
	"time"
)

// TestDefaults: the defaults the README's options table promises, and
// negative values turning a limit off.
func TestDefaults(t *testing.T) {
	t.Parallel()
	c := newConfig(nil)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"MaxBodyBytes", c.maxBody, int64(4 << 20)},
		{"SessionIdleTimeout", c.idleTimeout, 10 * time.Minute},
		{"KeepAlive", c.keepAlive, 15 * time.Second},
		{"HeaderFlushDelay", c.headerFlushDelay, time.Second},
		{"WriteTimeout", c.writeTimeout, 30 * time.Second},
		{"BodyTimeout", c.bodyTimeout, 30 * time.Second},
		{"Stateless", c.stateless, false},
		{"MaxStreamDuration", c.maxStreamDuration, time.Duration(0)},
		{"StreamsOutliveTokens", c.streamsOutliveTokens, false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	m, ok := c.events.(*MemoryEventStore)
	if !ok || m.max != 1<<20 {
		t.Errorf("Events: %T, want a MemoryEventStore of 1 MiB per session", c.events)
	}
	off := newConfig(&Options{MaxBodyBytes: -1, SessionIdleTimeout: -1, KeepAlive: -1, HeaderFlushDelay: -1, WriteTimeout: -1, BodyTimeout: -1, DisableResumability: true})
	if off.maxBody != 0 || off.idleTimeout != 0 || off.keepAlive != 0 || off.headerFlushDelay != 0 || off.writeTimeout != 0 || off.bodyTimeout != 0 || off.events != nil {
		t.Errorf("negative values and DisableResumability: %+v", off)
	}
	if c := newConfig(&Options{Stateless: true}); c.events != nil {
		t.Error("Stateless keeps no events")
	}
}
