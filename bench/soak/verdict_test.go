package soak

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// series returns samples every second for a minute: heap objects around
// level, growing by perMinute, with noise of about spread; the rest flat.
func series(level, perMinute, spread float64) []Sample {
	r := rand.New(rand.NewPCG(1, 2))
	var s []Sample
	for i := range 60 {
		at := time.Duration(i) * time.Second
		v := level + perMinute*at.Minutes() + spread*(r.Float64()-0.5)
		s = append(s, Sample{At: at, Goroutines: 40 + r.IntN(10), HeapObjects: uint64(v), RSS: 20 << 20, RedisKeys: -1})
	}
	return s
}

// TestJudge: a soak fails on heap objects that grow beyond noise under
// load, or that stay after it, and on Redis keys left; not on noise, a
// small drift, or what warm-up builds.
func TestJudge(t *testing.T) {
	start := Sample{Goroutines: 5, HeapObjects: 5000, RSS: 16 << 20, RedisKeys: -1}
	for _, tc := range []struct {
		name   string
		during []Sample
		end    Sample
		fail   string // what a failure names; "" for none
	}{
		{"flat, noisy", series(9000, 0, 4000), start, ""},
		{"small drift", series(9000, 500, 1000), start, ""},
		{"leak", series(9000, 20000, 1000), start, "heap objects grow"},
		{"remains", series(9000, 0, 1000), Sample{Goroutines: 5, HeapObjects: 9000, RSS: 16 << 20, RedisKeys: -1}, "heap objects remain"},
		{"goroutines remain", series(9000, 0, 1000), Sample{Goroutines: 20, HeapObjects: 5000, RSS: 16 << 20, RedisKeys: -1}, "goroutines remain"},
		{"warm-up ignored", append(series(1000, 0, 100)[:10], series(9000, 0, 1000)[10:]...), start, ""},
	} {
		_, failures := judge(start, tc.during, tc.end, 10*time.Second)
		got := strings.Join(failures, "; ")
		if tc.fail == "" && got != "" || tc.fail != "" && !strings.Contains(got, tc.fail) {
			t.Errorf("%s: failures %q, want %q", tc.name, got, tc.fail)
		}
	}
	redisStart := start
	redisStart.RedisKeys = 0
	left := redisStart
	left.RedisKeys = 3
	if _, failures := judge(redisStart, nil, left, 0); len(failures) != 1 || !strings.Contains(failures[0], "Redis keys remain") {
		t.Errorf("3 Redis keys left: failures %q", failures)
	}
}
