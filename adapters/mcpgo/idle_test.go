package mcpgo_test

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestIdleSessionWithoutGoroutine: idle 2025 sessions, initialized and
// then quiet, keep no goroutine of the engine or of mcp-go (the engine's
// call workers, a pool bounded whatever the number of sessions, are not
// counted: they end after 30 s without calls, workers.go).
func TestIdleSessionWithoutGoroutine(t *testing.T) {
	f := newFixture(t, nil)
	const n = 40
	for range n {
		rawSession(t, f.url)
	}
	deadline := time.Now().Add(wait)
	for {
		held := sessionGoroutines()
		if held == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the engine or mcp-go for %d idle sessions", held, n)
		}
		time.Sleep(10 * time.Millisecond) // calls still ending
	}
}

// sessionGoroutines counts the goroutines running the engine's code or
// mcp-go's, but the engine's call workers.
func sessionGoroutines() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "mcpgo.(*workers).loop") {
			continue
		}
		if strings.Contains(g, "mark3labs/mcp-go") || strings.Contains(g, "mcpmount/adapters/mcpgo.") {
			n++
		}
	}
	return n
}
