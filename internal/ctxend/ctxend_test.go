package ctxend_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/internal/ctxend"
)

// TestEither: f runs once, whichever context ends first or whether both
// do, and no goroutine waits before that.
func TestEither(t *testing.T) {
	for _, first := range []string{"a", "b", "both", "done already"} {
		t.Run(first, func(t *testing.T) {
			a, cancelA := context.WithCancel(context.Background())
			b, cancelB := context.WithCancel(context.Background())
			defer cancelA()
			defer cancelB()
			if first == "done already" {
				cancelA()
			}
			before := runtime.NumGoroutine()
			var runs atomic.Int32
			done := make(chan struct{}, 2)
			ctxend.Either(a, b, func() { runs.Add(1); done <- struct{}{} })
			if first != "done already" {
				if g := runtime.NumGoroutine(); g > before {
					t.Fatalf("%d goroutines wait, want none", g-before)
				}
			}
			switch first {
			case "a":
				cancelA()
			case "b":
				cancelB()
			case "both":
				cancelB()
				cancelA()
			}
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("f never ran")
			}
			cancelA()
			cancelB()
			time.Sleep(20 * time.Millisecond)
			if n := runs.Load(); n != 1 {
				t.Errorf("f ran %d times, want once", n)
			}
		})
	}
}
