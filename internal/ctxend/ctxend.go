// Package ctxend runs cleanup when the first of two contexts ends (a
// session's, or the engine serving it), without a goroutine waiting for
// it meanwhile: an idle session then costs no goroutine.
package ctxend

import (
	"context"
	"sync"
)

// Either runs f once, on a goroutine of its own, when a or b is done,
// whichever is first; f runs at once if one is done already.
func Either(a, b context.Context, f func()) {
	var mu sync.Mutex // the run waits for both registrations below
	var stops [2]func() bool
	run := sync.OnceFunc(func() {
		mu.Lock()
		stops[0]()
		stops[1]()
		mu.Unlock()
		f()
	})
	mu.Lock()
	stops[0] = context.AfterFunc(a, run)
	stops[1] = context.AfterFunc(b, run)
	mu.Unlock()
}
