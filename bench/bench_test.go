package bench

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(ChildEnv); name != "" {
		run := func(in io.Reader, out io.Writer) error { return RunChild(name, in, out) }
		if name == ListenChild {
			run = RunListenChild
		}
		if err := run(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	RaiseFileLimit()
	os.Exit(m.Run())
}

// ordered returns the variants, reversed when MCPMOUNT_BENCH_REVERSE is set
// so that alternating rounds do not always favour the same position.
func ordered() []Variant {
	vs := Variants()
	if os.Getenv("MCPMOUNT_BENCH_REVERSE") != "" {
		slices.Reverse(vs)
	}
	return vs
}

// settle waits for the goroutines of a stopped server to end, so that one
// benchmark does not run beside the last one's teardown.
func settle(before int) int {
	deadline := time.Now().Add(3 * time.Second)
	n := runtime.NumGoroutine()
	for n > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
		n = runtime.NumGoroutine()
	}
	return n
}

// BenchmarkCall runs each request scenario against each variant: ns/op is
// the time per request seen by the client, B/op and allocs/op are (nearly)
// the server's, as the raw client allocates nothing per request.
func BenchmarkCall(b *testing.B) {
	for _, sc := range Scenarios() {
		b.Run(sc.Name, func(b *testing.B) {
			for _, v := range ordered() {
				if v.HoldOnly {
					continue
				}
				b.Run(v.Name, func(b *testing.B) { benchCall(b, sc, v) })
			}
		})
	}
}

func benchCall(b *testing.B, sc Scenario, v Variant) {
	if sc.Needs2026 && v.Rejects2026 {
		b.Skip("rejects 2026-07-28 requests")
	}
	before := runtime.NumGoroutine()
	srv, err := Start(v.New(sc.Mode))
	if err != nil {
		b.Fatal(err)
	}
	defer settle(before)
	defer srv.Stop()

	// One client per concurrent goroutine of RunParallel.
	procs := runtime.GOMAXPROCS(0)
	par := (sc.Clients + procs - 1) / procs
	n := sc.Clients
	if n > 1 {
		n = par * procs
	}
	clients := make([]*RawClient, n)
	reqs := make([][]byte, n)
	for i := range clients {
		c, err := Dial(srv.Addr)
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		req, err := sc.Prepare(c, srv.Addr)
		if err != nil {
			b.Fatal(err)
		}
		clients[i], reqs[i] = c, req
		for range 3 { // warm up
			resp, err := c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := sc.Check(resp); err != nil {
				b.Fatal(err)
			}
		}
	}
	var lost atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	if n == 1 {
		c, req := clients[0], reqs[0]
		for range b.N {
			resp, err := c.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			l, err := sc.Check(resp)
			if err != nil {
				b.Fatal(err)
			}
			lost.Add(int64(l))
		}
	} else {
		var next atomic.Int64
		b.SetParallelism(par)
		b.RunParallel(func(pb *testing.PB) {
			i := next.Add(1) - 1
			c, req := clients[i], reqs[i]
			for pb.Next() {
				resp, err := c.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				l, err := sc.Check(resp)
				if err != nil {
					b.Error(err)
					return
				}
				lost.Add(int64(l))
			}
		})
	}
	b.StopTimer()
	cpu.report(b)
	if sc.Mode == ModeSSE {
		b.ReportMetric(float64(lost.Load())/float64(b.N), "lost/op")
	}
}

// cpuClock is the process's CPU time (user and system: server, client,
// garbage collector and every other goroutine) at a benchmark's start.
type cpuClock time.Duration

// startCPU reads the process's CPU time so far.
func startCPU() cpuClock {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpuClock(-1)
	}
	return cpuClock(ru.Utime.Nano() + ru.Stime.Nano())
}

// report reports the CPU time since c per iteration as cpu-ns/op: what a
// request costs the machine, steadier than wall time on a shared one.
func (c cpuClock) report(b *testing.B) {
	if now := startCPU(); c >= 0 && now >= 0 {
		b.ReportMetric(float64(now-c)/float64(b.N), "cpu-ns/op")
	}
}

// Held streams: the numbers of streams measured.
var holdCounts = []int{1000, 10000}

// BenchmarkHold opens 1,000 then 10,000 idle listen (or GET) streams on a
// server in a child process, reporting its memory per stream at each
// count, then fans one tools/list_changed out to all 10,000 and reports
// the time until every client has it. Run it with -benchtime=1x.
func BenchmarkHold(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range ordered() {
		b.Run(v.Name, func(b *testing.B) {
			for range b.N {
				benchHold(b, exe, v)
			}
		})
	}
}

func benchHold(b *testing.B, exe string, v Variant) {
	child, err := StartChild(exe, v.Name)
	if err != nil {
		b.Fatal(err)
	}
	var conns []*RawClient
	defer func() {
		CloseAll(conns)
		if err := child.Quit(); err != nil {
			b.Error(err)
		}
	}()
	live0, rss0, err := child.Mem()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range holdCounts {
		more, err := OpenStreams(child.Addr, v.HoldGET, n-len(conns))
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, more...)
		live, rss, err := child.Mem()
		if err != nil {
			b.Fatal(err)
		}
		k := fmt.Sprintf("%dk", n/1000)
		b.ReportMetric(float64(live-live0)/float64(n), "liveB/stream@"+k)
		b.ReportMetric(float64(rss-rss0)/float64(n), "rssB/stream@"+k)
	}
	d, server, err := FanOut(child, conns)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(d.Microseconds())/1000, "fanout-ms")
	b.ReportMetric(float64(server.Microseconds())/1000, "bcast-ms")
}

func testExecutable(t testing.TB) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
