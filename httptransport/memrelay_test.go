package httptransport

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// subscribers returns the number of subscriptions to sessionID's channel.
func (m *MemorySessionStore) subscribers(sessionID string) int {
	m.relay.mu.Lock()
	defer m.relay.mu.Unlock()
	return len(m.relay.subs[sessionID])
}

// TestMemoryRelay: MemorySessionStore delivers a publish to every
// subscriber of the session's channel, to no other channel's, and to none
// after it unsubscribed.
func TestMemoryRelay(t *testing.T) {
	t.Parallel()
	m := NewMemorySessionStore()
	ctx := context.Background()
	var mu sync.Mutex
	got := map[string][]string{}
	sub := func(name, sid string) func() {
		t.Helper()
		unsub, err := m.Subscribe(ctx, sid, func(msg []byte) {
			mu.Lock()
			got[name] = append(got[name], string(msg))
			mu.Unlock()
		})
		if err != nil {
			t.Fatal(err)
		}
		return unsub
	}
	un1, un2, un3 := sub("one", "s"), sub("two", "s"), sub("other", "t")
	buf := []byte("m1")
	if err := m.Publish(ctx, "s", buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, "xx") // the store kept its own copy
	un1()
	un1() // twice is harmless
	_ = m.Publish(ctx, "s", []byte("m2"))
	un2()
	_ = m.Publish(ctx, "s", []byte("m3"))
	mu.Lock()
	if g := strings.Join(got["one"], ","); g != "m1" {
		t.Errorf("first subscriber got %q, want m1", g)
	}
	if g := strings.Join(got["two"], ","); g != "m1,m2" {
		t.Errorf("second subscriber got %q, want m1,m2", g)
	}
	if len(got["other"]) != 0 {
		t.Errorf("another session's subscriber got %q", got["other"])
	}
	mu.Unlock()
	if n := m.subscribers("s"); n != 0 {
		t.Errorf("subscribers left on s: %d", n)
	}
	un3()
	if len(m.relay.subs) != 0 {
		t.Errorf("channels left: %v", m.relay.subs)
	}
}
