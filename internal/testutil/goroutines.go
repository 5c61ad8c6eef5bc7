package testutil

import (
	"runtime"
	"time"
)

// PeakGoroutines samples the number of goroutines every interval, from now
// until stop is closed, and returns a function that waits for the sampling
// to end and reports the highest number seen, the sampler's own goroutine
// not counted. A sample misses what starts and ends between two: use it
// for goroutines that last far longer than interval.
func PeakGoroutines(stop <-chan struct{}, interval time.Duration) (peak func() int) {
	done := make(chan int, 1)
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		most := 0
		for {
			most = max(most, runtime.NumGoroutine()-1)
			select {
			case <-stop:
				done <- most
				return
			case <-tick.C:
			}
		}
	}()
	return func() int { return <-done }
}
