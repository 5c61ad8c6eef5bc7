package mcpgo_test

import (
	"testing"
	"time"
)

// TestIdleSessionWithoutGoroutine: idle 2025 sessions, initialized and
// then quiet, keep no goroutine of the engine or of mcp-go.
func TestIdleSessionWithoutGoroutine(t *testing.T) {
	f := newFixture(t, nil)
	const n = 40
	for range n {
		rawSession(t, f.url)
	}
	deadline := time.Now().Add(wait)
	for {
		held := handlerGoroutines()
		if held == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the engine or mcp-go for %d idle sessions", held, n)
		}
		time.Sleep(10 * time.Millisecond) // calls still ending
	}
}
