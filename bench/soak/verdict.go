package soak

import (
	"fmt"
	"math"
	"time"
)

// Sample is one reading of the server process.
type Sample struct {
	At          time.Duration // since the load began
	Goroutines  int
	HeapObjects uint64 // live, after a collection
	RSS         int64  // bytes
	RedisKeys   int    // under the target's prefix; -1 without Redis
}

// metric is what a soak judges of a Sample: its trend under load, and
// what is left after it.
type metric struct {
	name  string
	value func(Sample) float64
	// noise is the growth over the judged window below which a slope is
	// not a leak, given the window's mean.
	noise func(mean float64) float64
	// allowance is how far above the start the end may be (negative: not
	// judged).
	allowance func(start float64) float64
}

// slopeSigmas is how many standard errors a slope must be above zero to
// count, besides its growth being above the metric's noise.
const slopeSigmas = 4

// unit scales a metric's figures for the report: RSS in MiB.
func (m metric) unit() (float64, string) {
	if m.name == "RSS" {
		return 1 << 20, " MiB"
	}
	return 1, ""
}

var metrics = []metric{
	{
		name:      "goroutines",
		value:     func(s Sample) float64 { return float64(s.Goroutines) },
		noise:     func(float64) float64 { return 10 },
		allowance: func(float64) float64 { return 3 },
	},
	{
		name:  "heap objects",
		value: func(s Sample) float64 { return float64(s.HeapObjects) },
		// A load's objects in flight vary by some thousands.
		noise:     func(mean float64) float64 { return max(0.1*mean, 3000) },
		allowance: func(start float64) float64 { return max(0.25*start, 3000) },
	},
	{
		name:  "RSS",
		value: func(s Sample) float64 { return float64(s.RSS) },
		// The runtime keeps and returns pages as it sees fit: only a
		// growth of many MiB counts, and none is judged after the load.
		noise:     func(mean float64) float64 { return max(0.1*mean, 16<<20) },
		allowance: func(float64) float64 { return -1 },
	},
	{
		name:      "Redis keys",
		value:     func(s Sample) float64 { return float64(s.RedisKeys) },
		noise:     func(float64) float64 { return math.Inf(1) }, // sessions come and go with the load
		allowance: func(float64) float64 { return 0 },
	},
}

// fit returns the least-squares slope of ys over xs and its standard error.
func fit(xs, ys []float64) (slope, se float64) {
	n := float64(len(xs))
	if n < 3 {
		return 0, math.Inf(1)
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx == 0 {
		return 0, math.Inf(1)
	}
	slope = sxy / sxx
	var ss float64
	for i := range xs {
		r := ys[i] - my - slope*(xs[i]-mx)
		ss += r * r
	}
	return slope, math.Sqrt(ss / (n - 2) / sxx)
}

// judge returns what is wrong with a soak's samples: start before the
// load, during the load past warmUp, and end once the load had stopped
// and the idle sessions expired. It also returns a line per metric.
func judge(start Sample, during []Sample, end Sample, warmUp time.Duration) (report []string, failures []string) {
	var judged []Sample
	for _, s := range during {
		if s.At >= warmUp {
			judged = append(judged, s)
		}
	}
	for _, m := range metrics {
		if m.value(start) < 0 { // no Redis
			continue
		}
		xs, ys := make([]float64, len(judged)), make([]float64, len(judged))
		mean := 0.0
		for i, s := range judged {
			xs[i], ys[i] = s.At.Minutes(), m.value(s)
			mean += ys[i] / float64(len(judged))
		}
		slope, se := fit(xs, ys)
		window := 0.0
		if len(xs) > 1 {
			window = xs[len(xs)-1] - xs[0]
		}
		s0, s1 := m.value(start), m.value(end)
		u, us := m.unit()
		report = append(report, fmt.Sprintf("%-12s start %.1f%s, under load %.1f%s (%+.4g%s/min, se %.3g), after %.1f%s",
			m.name, s0/u, us, mean/u, us, slope/u, us, se/u, s1/u, us))
		if slope > slopeSigmas*se && slope*window > m.noise(mean) {
			failures = append(failures, fmt.Sprintf("%s grow under load: %+.4g%s/min (se %.3g), %.1f%s over %.1f min against a noise of %.1f%s",
				m.name, slope/u, us, se/u, slope*window/u, us, window, m.noise(mean)/u, us))
		}
		if a := m.allowance(s0); a >= 0 && s1 > s0+a {
			failures = append(failures, fmt.Sprintf("%s remain after the load: %.1f%s, against %.1f%s before it (allowed %.1f%s more)",
				m.name, s1/u, us, s0/u, us, a/u, us))
		}
	}
	return report, failures
}
