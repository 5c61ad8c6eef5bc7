package stdio_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestIdleSessionWithoutGoroutine: 2025 sessions on the shared child,
// initialized and then quiet (GET streams open), add no goroutine of the
// engine's: the child's readers and supervisor are the engine's, whatever
// the number of sessions.
func TestIdleSessionWithoutGoroutine(t *testing.T) {
	for _, srv := range servers { // one at a time: the test counts this process's goroutines
		t.Run(srv.name, func(t *testing.T) {
			f := newFixture(t, srv, nil)
			connect(t, f.url, httptransport.Version20251125, nil) // the child is up
			before := engineGoroutines()
			const n = 20
			for range n {
				connect(t, f.url, httptransport.Version20251125, nil)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				got := engineGoroutines()
				if got <= before {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("%d goroutines of the engine for %d more idle sessions, %d before", got, n, before)
				}
				time.Sleep(10 * time.Millisecond) // calls still ending
			}
		})
	}
}

// engineGoroutines counts the goroutines running the engine's code.
func engineGoroutines() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "mcpmount/adapters/stdio.") {
			n++
		}
	}
	return n
}
