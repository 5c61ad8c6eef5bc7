package mcpgo_test

import (
	"fmt"
	"testing"
)

// TestIdleSessionWithoutGoroutine: idle 2025 sessions, initialized and
// then quiet, keep no goroutine of the engine or of mcp-go.
func TestIdleSessionWithoutGoroutine(t *testing.T) {
	f := newFixture(t, nil)
	const n = 40
	for range n {
		rawSession(t, f.url)
	}
	waitNoHandlerGoroutines(t, fmt.Sprintf("%d idle sessions", n))
}
