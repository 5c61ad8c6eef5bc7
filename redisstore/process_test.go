package redisstore_test

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/internal/testutil"
)

// Instances as processes of their own (internal/instance), for the tests
// that kill one: a process stopped with SIGKILL does nothing more, not
// even close its connections cleanly; the kernel resets them.

// buildInstance builds internal/instance once per test, with the race
// detector when the test has it (its packages are built so already).
func buildInstance(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "instance")
	args := []string{"build", "-o", bin}
	if raceEnabled() {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, "./internal/instance")...).CombinedOutput()
	if err != nil {
		t.Fatalf("building internal/instance: %v\n%s", err, out)
	}
	return bin
}

// raceEnabled reports whether the test binary was built with -race.
func raceEnabled() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// process is an instance running as a process of its own.
type process struct {
	name   string
	url    string // its /mcp endpoint
	base   *url.URL
	cmd    *exec.Cmd
	log    *testutil.Buffer // its standard error: the transport's log
	exited chan struct{}
}

// startInstanceProcess starts bin as the instance named name, on the
// test's Redis under the test's prefix, and waits until it serves. It is
// interrupted (or killed, after 10 s) at the test's end, and its log
// shown if the test failed.
func startInstanceProcess(t *testing.T, bin, name string, liveness time.Duration) *process {
	t.Helper()
	p := &process{name: name, log: &testutil.Buffer{}, exited: make(chan struct{})}
	listening := &lineWatch{prefix: "listening on ", found: make(chan string, 1)}
	p.cmd = exec.Command(bin, "-name", name, "-redis", redisAddr, "-prefix", testPrefix(t), "-liveness", liveness.String())
	p.cmd.Stdout, p.cmd.Stderr = listening, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			p.kill()
		}
		if t.Failed() {
			t.Logf("instance %s's log:\n%s", name, p.log.String())
		}
	})
	select {
	case line := <-listening.found:
		p.url = line
	case <-p.exited:
		t.Fatalf("instance %s exited: %s", name, p.log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("instance %s did not start: %s", name, p.log.String())
	}
	u, err := url.Parse(strings.TrimSuffix(p.url, "/mcp"))
	if err != nil {
		t.Fatal(err)
	}
	p.base = u
	return p
}

// kill stops the process with SIGKILL and waits until it is gone.
func (p *process) kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// lineWatch is a process's standard output: it sends on found what
// follows prefix on the first line that begins with it.
type lineWatch struct {
	prefix string
	found  chan string
	mu     sync.Mutex
	buf    []byte
}

func (w *lineWatch) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, b...)
	for {
		line, rest, ok := bytes.Cut(w.buf, []byte("\n"))
		if !ok {
			return len(b), nil
		}
		w.buf = rest
		if after, ok := strings.CutPrefix(string(line), w.prefix); ok {
			select {
			case w.found <- strings.TrimSpace(after):
			default:
			}
		}
	}
}

// ctxFor returns a context ending after d or with the test.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
