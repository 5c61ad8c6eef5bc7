package bench

import (
	"os"
	"slices"
	"testing"
)

// observedScenarios are the scenarios of BenchmarkObserved.
var observedScenarios = []string{"json2026", "session2025", "json2026-64clients"}

// BenchmarkObserved runs json2026, session2025 and json2026-64clients
// through the go-sdk and the mcp-go engines, without an observer and with
// otelmcp (every call traced, then a tenth of them): the difference is
// what tracing and metrics add to a call of the whole stack.
func BenchmarkObserved(b *testing.B) {
	engines := slices.Clone(ObservedEngines)
	observers := slices.Clone(Observers)
	if os.Getenv("MCPMOUNT_BENCH_REVERSE") != "" {
		slices.Reverse(engines)
		slices.Reverse(observers)
	}
	for _, sc := range Scenarios() {
		if !slices.Contains(observedScenarios, sc.Name) {
			continue
		}
		b.Run(sc.Name, func(b *testing.B) {
			for _, engine := range engines {
				for _, obs := range observers {
					v, err := ObservedVariant(engine, obs)
					if err != nil {
						b.Fatal(err)
					}
					b.Run(v.Name, func(b *testing.B) { benchCall(b, sc, v) })
				}
			}
		})
	}
}

// BenchmarkObserverParts is json2026 through the mcp-go engine with each
// of ObserverParts: what otelmcp's cost is made of, where it weighs most.
func BenchmarkObserverParts(b *testing.B) {
	sc := Scenarios()[0] // json2026
	for _, obs := range ObserverParts {
		v, err := ObservedVariant(MCPMountMCPGo, obs)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(v.Name, func(b *testing.B) { benchCall(b, sc, v) })
	}
}
