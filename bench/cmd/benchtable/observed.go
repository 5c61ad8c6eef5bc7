package main

import (
	"fmt"
	"io"
	"math"
	"slices"
)

// Engines, observers and scenarios of BenchmarkObserved; keep in step
// with the bench package.
var (
	observedEngines   = []string{"mcpmount-gosdk", "mcpmount-mcpgo"}
	observers         = []string{"otel", "otel-sampled10"}
	observedScenarios = []string{"json2026", "session2025", "json2026-64clients"}
)

// observedName is the benchmark of a scenario, engine and observer.
func observedName(sc, engine, obs string) string {
	return "BenchmarkObserved/" + sc + "/" + engine + "/observer=" + obs
}

// fmtAdded turns a ratio into what it adds, as a percentage.
func fmtAdded(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.0f%%", 100*(r-1))
}

// observedTable prints what otelmcp adds to a call of each engine.
func observedTable(w io.Writer, res results) {
	if res[observedName("json2026", observedEngines[0], "none")] == nil {
		return
	}
	tableHead(w, "With OpenTelemetry", "The same scenarios through the go-sdk and mcp-go engines with an `otelmcp` Observer on the real OpenTelemetry SDK: every call traced (`otel`), or a tenth of the traces kept (`otel-sampled10`, `ParentBased(TraceIDRatioBased(0.1))`); spans through the batch span processor with its defaults to an exporter that drops them, metrics aggregated for a reader. \"added\" is the median over rounds of the ratio to the same engine without an observer, minus one: time per request seen by the client, and the process's CPU time per request.", 2, "scenario", "engine", "ns/op, none", "ns/op, otel", "time added, otel", "CPU added, otel", "time added, sampled 10%", "CPU added, sampled 10%", "B/op added, otel", "allocs/op added, otel")
	for _, sc := range observedScenarios {
		for _, e := range observedEngines {
			none := observedName(sc, e, "none")
			if res[none] == nil {
				continue
			}
			all, some := observedName(sc, e, "otel"), observedName(sc, e, "otel-sampled10")
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", sc, e,
				fmtNum(res.value(none, "ns/op")), fmtNum(res.value(all, "ns/op")),
				fmtAdded(res.ratio(all, none, "ns/op")), fmtAdded(res.ratio(all, none, "cpu-ns/op")),
				fmtAdded(res.ratio(some, none, "ns/op")), fmtAdded(res.ratio(some, none, "cpu-ns/op")),
				fmtNum(res.value(all, "B/op")-res.value(none, "B/op")), fmtNum(res.value(all, "allocs/op")-res.value(none, "allocs/op")))
		}
	}
	fmt.Fprintln(w)
}

// observedTarget measures the observability target, at most 15% added to
// json2026's time per request with every call traced, through engine.
func observedTarget(res results, engine string) (text string, ok bool, rounds, passed int) {
	none, all := observedName("json2026", engine, "none"), observedName("json2026", engine, "otel")
	rs := res.ratios(all, none, "ns/op")
	if rs == nil {
		return "not measured", false, 0, 0
	}
	med := median(rs)
	rounds, passed = judge(rs, func(r float64) bool { return r <= 1.15 })
	cpu := res.ratio(all, none, "cpu-ns/op")
	text = fmt.Sprintf("time %s (%s to %s), CPU %s", fmtAdded(med), fmtAdded(slices.Min(rs)), fmtAdded(slices.Max(rs)), fmtAdded(cpu))
	return text, med <= 1.15, rounds, passed
}
