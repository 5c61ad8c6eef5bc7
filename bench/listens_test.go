package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listenCounts are the numbers of listens BenchmarkListens holds:
// MCPMOUNT_BENCH_LISTENS, comma-separated, or 10,000.
func listenCounts(tb testing.TB) []int {
	env := os.Getenv("MCPMOUNT_BENCH_LISTENS")
	if env == "" {
		return []int{10000}
	}
	var counts []int
	for _, f := range strings.Split(env, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 10 {
			tb.Fatalf("MCPMOUNT_BENCH_LISTENS: %q is not a count of at least 10", f)
		}
		counts = append(counts, n)
	}
	return counts
}

// BenchmarkListens holds n idle 2026-07-28 listens (tools/list_changed)
// on a go-sdk server behind the engine, in a child process, and reports:
//
//   - liveB/listen, rssB/listen, goroutines/listen: the child's live heap
//     plus stacks, RSS and goroutines per listen, after a GC;
//   - fanout-ms: from the tool change until every client has read the
//     tools/list_changed (the SDK debounces changes by 10 ms first);
//   - then the last 10% of the listens are replaced by clients that
//     watch a large resource too, and fanout90-ms is the time until the
//     other 90% have read a change while these read too, and
//     fanout90-stalled-ms the same once they have stopped reading and the
//     write of one resource update to each is blocked; stall-x is the
//     ratio of the two (the target: at most 1.2).
//
// Run it with -benchtime=1x; MCPMOUNT_BENCH_LISTENS sets n
// (comma-separated counts; 10,000 by default). Each listen is one socket
// on each side: the benchmark raises its own and the child's open-file
// limit, which needs CAP_SYS_RESOURCE past the hard limit.
func BenchmarkListens(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range listenCounts(b) {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for range b.N {
				runListens(b, exe, n, b.ReportMetric)
			}
		})
	}
}

// progress notes a step of the benchmark on stderr as it goes.
func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05.000 ")+format+"\n", args...)
}

// TestListensHarness runs the listens benchmark's steps with 50 listens:
// every client gets the change, and the writes to the clients that stop
// reading block, without keeping the others from their change.
func TestListensHarness(t *testing.T) {
	runListens(t, testExecutable(t), 50, func(v float64, unit string) { t.Logf("%.4g %s", v, unit) })
}

// runListens runs the listens benchmark with n listens, reporting its
// numbers to report.
func runListens(b testing.TB, exe string, n int, report func(float64, string)) {
	if lim := RaiseFileLimitTo(uint64(n) + 4096); lim < uint64(n)+256 {
		b.Fatalf("%d listens need %d open files in this process and in the server's; the limit is %d (raising the hard limit needs CAP_SYS_RESOURCE: ulimit -Hn)", n, n+256, lim)
	}
	child, err := StartChild(exe, ListenChild)
	if err != nil {
		b.Fatal(err)
	}
	conns := make([]*RawClient, n)
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
	g0, err := child.Goroutines()
	if err != nil {
		b.Fatal(err)
	}
	progress("listens: opening %d", n)
	opened := time.Now()
	if err := OpenListens(child.Addr, conns, 0, n, 0, BodyListen2026); err != nil {
		b.Fatal(err)
	}
	report(float64(time.Since(opened).Milliseconds()), "open-ms")
	live, rss, err := child.Mem()
	if err != nil {
		b.Fatal(err)
	}
	g, err := child.Goroutines()
	if err != nil {
		b.Fatal(err)
	}
	report(float64(live-live0)/float64(n), "liveB/listen")
	report(float64(rss-rss0)/float64(n), "rssB/listen")
	report(float64(g-g0)/float64(n), "goroutines/listen")

	progress("listens: fan-out to all")
	all, err := change(child, conns, nil)
	if err != nil {
		b.Fatal(err)
	}
	report(float64(all.Microseconds())/1000, "fanout-ms")

	// The mix: the last 10% watch StallURI too, and will stop reading.
	k := n / 10
	readers, stallers := conns[:n-k], conns[n-k:]
	CloseAll(stallers)
	clear(stallers)
	progress("listens: opening %d that will stall", k)
	if err := OpenListens(child.Addr, conns, n-k, n, 4096, BodyListenStall); err != nil {
		b.Fatal(err)
	}
	// Each measured change follows a "mem" command (a GC that returns
	// free memory to the OS), as those after the stall must: the rounds
	// compare. The medians of a few rounds each, the machine being shared.
	const rounds = 5
	var reading, stalled []time.Duration
	for range rounds {
		if _, err := child.Goroutines(); err != nil {
			b.Fatal(err)
		}
		d, err := change(child, readers, stallers)
		if err != nil {
			b.Fatal(err)
		}
		reading = append(reading, d)
	}
	g1, err := child.Goroutines()
	if err != nil {
		b.Fatal(err)
	}
	progress("listens: stalling")
	if err := child.Do("stall"); err != nil {
		b.Fatal(err)
	}
	// Each stalled client's update is written by a worker that blocks on
	// it: wait until (nearly) all are. They stay blocked for the
	// transport's WriteTimeout (30 s), more than the rounds below take.
	for deadline := time.Now().Add(20 * time.Second); ; {
		g, err := child.Goroutines()
		if err != nil {
			b.Fatal(err)
		}
		if g-g1 >= k*9/10 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d writes to stalled clients blocked of %d", g-g1, k)
		}
		time.Sleep(100 * time.Millisecond)
	}
	progress("listens: fan-out with stalled clients")
	for i := range rounds {
		if i > 0 {
			if _, err := child.Goroutines(); err != nil {
				b.Fatal(err)
			}
		}
		d, err := change(child, readers, nil)
		if err != nil {
			b.Fatal(err)
		}
		stalled = append(stalled, d)
	}
	r, s := median(reading), median(stalled)
	report(float64(r.Microseconds())/1000, "fanout90-ms")
	report(float64(s.Microseconds())/1000, "fanout90-stalled-ms")
	report(float64(s)/float64(r), "stall-x")
}

func median(ds []time.Duration) time.Duration {
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// change makes the child announce a tool change and returns how long
// until every one of conns has read it; others read it too, meanwhile.
func change(child *Child, conns, others []*RawClient) (time.Duration, error) {
	start := time.Now()
	if err := child.Do("change"); err != nil {
		return 0, err
	}
	done := make(chan error, 1)
	go func() {
		_, err := ReadChange(others, start)
		done <- err
	}()
	d, err := ReadChange(conns, start)
	if oerr := <-done; err == nil {
		err = oerr
	}
	return d, err
}
