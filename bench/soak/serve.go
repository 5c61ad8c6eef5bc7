package soak

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Serve is a soak's server process: it serves cfg's target, announces a
// tools/list change every change, and obeys one-line commands on in:
// "stats" reports a Sample's server side ("stats GOROUTINES HEAPOBJECTS
// RSS REDISKEYS"), "quit" (or the end of in) stops it. Its first line on
// out is "url URL", the MCP endpoint.
func Serve(cfg ServeConfig, change time.Duration, in io.Reader, out io.Writer) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	// The proxy logs every request a client dropped (an aborted call, a
	// closed stream), as the load means them to be.
	log.SetOutput(io.Discard)
	t, err := startTarget(cfg, logger)
	if err != nil {
		return err
	}
	defer t.stop()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { // the list changes, for as long as the process serves
		defer close(done)
		tick := time.NewTicker(change)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				t.flip()
			}
		}
	}()
	defer func() { cancel(); <-done }()
	fmt.Fprintf(out, "url %s\n", t.url)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		switch sc.Text() {
		case "stats":
			g, objects, rss := measure()
			fmt.Fprintf(out, "stats %d %d %d %d\n", g, objects, rss, t.redisKeys(cfg.Prefix))
		case "quit":
			return nil
		default:
			fmt.Fprintf(out, "unknown command %q\n", sc.Text())
		}
	}
	return sc.Err()
}

// measure returns the process's goroutines, its live heap objects and its
// resident set size, after collecting garbage and returning free pages to
// the OS.
func measure() (goroutines int, heapObjects uint64, rss int64) {
	debug.FreeOSMemory() // collects garbage first
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			rss = pages * int64(os.Getpagesize())
		}
	}
	return runtime.NumGoroutine(), ms.HeapObjects, rss
}

// redisKeys counts the keys under prefix in the target's Redis, -1
// without one (or when Redis does not answer).
func (t *target) redisKeys(prefix string) int {
	if t.redis == nil {
		return -1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	n := 0
	iter := t.redis.Scan(ctx, 0, prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		n++
	}
	if iter.Err() != nil {
		return -1
	}
	return n
}
