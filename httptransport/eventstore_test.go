package httptransport

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestMemoryEventStoreBoundAcrossSessions: many sessions, each under its
// own bound, together stay under MaxBytes; the oldest events of the whole
// store go first, and a resuming client asking for them is told so.
func TestMemoryEventStoreBoundAcrossSessions(t *testing.T) {
	t.Parallel()
	const event = 100 + eventOverhead
	m := NewMemoryEventStore(&MemoryEventStoreOptions{MaxBytesPerSession: 10 * event, MaxBytes: 50 * event})
	ctx := context.Background()
	data := []byte(strings.Repeat("x", 100))
	for s := range 30 {
		for i := 1; i <= 5; i++ {
			if err := m.Append(ctx, "s"+strconv.Itoa(s), "1", i, data); err != nil {
				t.Fatal(err)
			}
		}
	}
	m.mu.Lock()
	total, held := m.total, 0
	for _, s := range m.sessions {
		held += s.bytes
	}
	m.mu.Unlock()
	if total > 50*event || held != total {
		t.Errorf("store holds %d bytes (sessions say %d), want at most %d", total, held, 50*event)
	}
	if _, err := m.After(ctx, "s0", "1", 0); err != ErrEventsGone {
		t.Errorf("the oldest session's events: %v, want ErrEventsGone", err)
	}
	if got, err := m.After(ctx, "s29", "1", 0); err != nil || len(got) != 5 {
		t.Errorf("the newest session's events: %d, %v; want all 5", len(got), err)
	}
	// Sessions closing and their own bounds leave stale entries in the
	// order across sessions; it stays proportionate to what is held.
	for s := range 3000 {
		id := "t" + strconv.Itoa(s)
		for i := 1; i <= 12; i++ {
			_ = m.Append(ctx, id, "1", i, nil)
		}
		_ = m.SessionClosed(ctx, id)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.order) > 2*m.live+1024 || m.live < 0 {
		t.Errorf("order across sessions holds %d entries for %d events", len(m.order), m.live)
	}
}
