// Package soak runs a mixed MCP load against a server for a while, in a
// process of its own, and judges whether the server keeps what it no
// longer needs: goroutines, heap objects and RSS sampled during the load
// must not grow beyond noise once warmed up, and must be back near where
// they started once the load has stopped and its idle sessions expired
// (with Redis, no key left either). The soak command runs it.
package soak

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpmount/mcpmount/bench"
)

// Config is a soak's: what it runs against, the load, and its timing.
type Config struct {
	Exe         string        // the program that serves a target (Serve), started as Exe -serve TARGET ...
	Load        Load          // the load
	Duration    time.Duration // how long the load runs
	WarmUp      time.Duration // the start of the load that is not judged
	Every       time.Duration // how often the server is sampled
	IdleTimeout time.Duration // the server's SessionIdleTimeout
	Change      time.Duration // how often the server announces a tools/list change
	RedisAddr   string        // the Redis of TargetPair
	Log         io.Writer     // the progress and the report
}

// Result is what one target's soak found.
type Result struct {
	Target   string
	Report   []string // a line per metric
	Failures []string // nothing when the target passed
	Load     string   // what the clients did
}

// Run soaks target and returns what it found; an error means the soak
// could not run.
func Run(ctx context.Context, cfg Config, target string) (*Result, error) {
	prefix := fmt.Sprintf("soak:%d:%s:", os.Getpid(), target)
	c, err := startServer(cfg, target, prefix)
	if err != nil {
		return nil, err
	}
	defer c.quit()
	if err := warm(ctx, c.url); err != nil {
		return nil, err
	}
	start, err := c.sample(0)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(cfg.Log, "%s: serving %s; load for %v\n", target, c.url, cfg.Duration)
	t := &tally{ok: map[string]int{}, failed: map[string]int{}}
	lctx, stop := context.WithTimeout(ctx, cfg.Duration)
	defer stop()
	loaded := make(chan struct{})
	go func() { defer close(loaded); cfg.Load.run(lctx, c.url, t) }()
	began := time.Now()
	var during []Sample
	tick := time.NewTicker(cfg.Every)
	defer tick.Stop()
	for lctx.Err() == nil {
		select {
		case <-tick.C:
			s, err := c.sample(time.Since(began))
			if err != nil {
				return nil, err
			}
			during = append(during, s)
		case <-lctx.Done():
		}
	}
	<-loaded
	end, err := c.settle(ctx, cfg, start, time.Since(began))
	if err != nil {
		return nil, err
	}
	report, failures := judge(start, during, end, cfg.WarmUp)
	if n := t.errors(); n > 0 {
		failures = append(failures, fmt.Sprintf("%d client errors", n))
	}
	return &Result{Target: target, Report: report, Failures: failures, Load: t.String()}, nil
}

// server is a target served by a process of its own.
type server struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	url string
}

// startServer starts cfg.Exe serving target and reads its URL.
func startServer(cfg Config, target, prefix string) (*server, error) {
	cmd := exec.Command(cfg.Exe, "-serve", target, "-idle", cfg.IdleTimeout.String(),
		"-change", cfg.Change.String(), "-redis", cfg.RedisAddr, "-prefix", prefix)
	in, out, err := bench.StartPiped(cmd)
	if err != nil {
		return nil, fmt.Errorf("soak: starting the %s server: %w", target, err)
	}
	s := &server{cmd: cmd, in: in, out: out}
	line, err := s.out.ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "url ")
	if err != nil || !ok {
		s.quit()
		return nil, fmt.Errorf("soak: the %s server did not start: %q %v", target, line, err)
	}
	s.url = url
	return s, nil
}

// sample asks the server for its figures.
func (s *server) sample(at time.Duration) (Sample, error) {
	smp := Sample{At: at}
	if _, err := io.WriteString(s.in, "stats\n"); err != nil {
		return smp, fmt.Errorf("soak: asking for stats: %w", err)
	}
	line, err := s.out.ReadString('\n')
	if err == nil {
		_, err = fmt.Sscanf(line, "stats %d %d %d %d", &smp.Goroutines, &smp.HeapObjects, &smp.RSS, &smp.RedisKeys)
	}
	if err != nil {
		return smp, fmt.Errorf("soak: stats: %q: %w", line, err)
	}
	return smp, nil
}

// settle samples the server once the load has stopped, until what the
// load left is gone (as the start, within each metric's allowance) or
// the idle sessions, and with Redis their events, have had time to
// expire (three idle timeouts and some), and returns the last sample.
func (s *server) settle(ctx context.Context, cfg Config, start Sample, at time.Duration) (Sample, error) {
	deadline := time.Now().Add(3*cfg.IdleTimeout + 10*time.Second)
	tick := time.NewTicker(cfg.Every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return Sample{}, ctx.Err()
		case <-tick.C:
		}
		end, err := s.sample(at)
		if err != nil {
			return end, err
		}
		if _, failures := judge(start, nil, end, 0); len(failures) == 0 || time.Now().After(deadline) {
			return end, nil
		}
	}
}

// quit stops the server process.
func (s *server) quit() {
	_, _ = io.WriteString(s.in, "quit\n")
	_ = s.in.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// String is the result as the soak prints it.
func (r *Result) String() string {
	var b strings.Builder
	verdict := "PASS"
	if len(r.Failures) > 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "%s %s\n  load: %s\n", verdict, r.Target, r.Load)
	for _, l := range r.Report {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "  FAIL: %s\n", f)
	}
	return b.String()
}
