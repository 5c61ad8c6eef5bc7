package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The held-stream scenarios run the server in a child process: its memory
// is then measured alone, and each process stays within the file
// descriptor limit (10,000 streams are 10,000 sockets on each side).

// ChildEnv names the variant a child process serves.
const ChildEnv = "MCPMOUNT_BENCH_CHILD"

// RaiseFileLimit lifts the soft limit on open files to the hard limit.
func RaiseFileLimit() {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
}

// VariantByName returns the named variant.
func VariantByName(name string) (Variant, bool) {
	for _, v := range Variants() {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// RunChild serves the named variant for held streams and obeys one-line
// commands on in: "mem" reports memory, "broadcast" runs the fan-out,
// "quit" (or the end of in) stops the server.
func RunChild(name string, in io.Reader, out io.Writer) error {
	RaiseFileLimit()
	v, ok := VariantByName(name)
	if !ok {
		return fmt.Errorf("unknown variant %q", name)
	}
	srv, err := Start(v.New(ModeStream))
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "addr %s\n", srv.Addr)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		switch sc.Text() {
		case "mem":
			live, rss := MeasureMem()
			fmt.Fprintf(out, "mem %d %d %d\n", live, rss, runtime.NumGoroutine())
		case "broadcast":
			startProfile()
			start := time.Now()
			srv.Broadcast()
			fmt.Fprintf(out, "ok %d\n", time.Since(start).Nanoseconds())
		case "quit":
			stopProfile()
			srv.Stop()
			fmt.Fprintln(out, "bye")
			return nil
		}
	}
	srv.Stop()
	return nil
}

// ProfileEnv names a file for a CPU profile of the child from its first
// broadcast until it quits (the fan-out, without the streams' opening).
const ProfileEnv = "MCPMOUNT_BENCH_CPUPROFILE"

var profiling *os.File

func startProfile() {
	path := os.Getenv(ProfileEnv)
	if path == "" || profiling != nil {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		return
	}
	if pprof.StartCPUProfile(f) != nil {
		_ = f.Close()
		return
	}
	profiling = f
}

func stopProfile() {
	if profiling != nil {
		pprof.StopCPUProfile()
		_ = profiling.Close()
		profiling = nil
	}
}

// MeasureMem returns the live memory (heap spans in use plus goroutine
// stacks) and the resident set size, after collecting garbage and
// returning free pages to the OS.
func MeasureMem() (live, rss int64) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	live = int64(ms.HeapInuse + ms.StackInuse)
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 1 {
			pages, _ := strconv.ParseInt(f[1], 10, 64)
			rss = pages * int64(os.Getpagesize())
		}
	}
	return live, rss
}

// Child is a server process started by the benchmark.
type Child struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	Addr string
}

// StartPiped starts cmd with its stdin and stdout piped to the caller and
// its stderr ours: a child process obeying one-line commands.
func StartPiped(cmd *exec.Cmd) (in io.WriteCloser, out *bufio.Reader, err error) {
	cmd.Stderr = os.Stderr
	in, err = cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return in, bufio.NewReader(stdout), nil
}

// StartChild runs exe (the test binary) as a server of the named variant.
func StartChild(exe, name string) (*Child, error) {
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), ChildEnv+"="+name)
	in, out, err := StartPiped(cmd)
	if err != nil {
		return nil, err
	}
	c := &Child{cmd: cmd, in: in, out: out}
	line, err := c.reply()
	if err != nil || !strings.HasPrefix(line, "addr ") {
		c.Kill()
		return nil, fmt.Errorf("child %s: %q %v", name, line, err)
	}
	c.Addr = strings.TrimPrefix(line, "addr ")
	return c, nil
}

func (c *Child) reply() (string, error) {
	line, err := c.out.ReadString('\n')
	return strings.TrimSpace(line), err
}

func (c *Child) command(cmd string) (string, error) {
	if _, err := io.WriteString(c.in, cmd+"\n"); err != nil {
		return "", err
	}
	return c.reply()
}

// Mem returns the child's live memory and RSS.
func (c *Child) Mem() (live, rss int64, err error) {
	line, err := c.command("mem")
	if err != nil {
		return 0, 0, err
	}
	if _, err := fmt.Sscanf(line, "mem %d %d", &live, &rss); err != nil {
		return 0, 0, fmt.Errorf("mem: %q: %v", line, err)
	}
	return live, rss, nil
}

// Broadcast asks the child to fan a list change out and returns how long
// the server's broadcast call took (for peers that notify asynchronously,
// only the time to start it).
func (c *Child) Broadcast() (time.Duration, error) {
	line, err := c.command("broadcast")
	if err != nil {
		return 0, err
	}
	var ns int64
	if _, err := fmt.Sscanf(line, "ok %d", &ns); err != nil {
		return 0, fmt.Errorf("broadcast: %q", line)
	}
	return time.Duration(ns), nil
}

// Quit stops the server and waits for the process to exit.
func (c *Child) Quit() error {
	line, err := c.command("quit")
	if err == nil && line != "bye" {
		err = fmt.Errorf("quit: %q", line)
	}
	_ = c.in.Close()
	if werr := c.cmd.Wait(); err == nil {
		err = werr
	}
	return err
}

// Kill ends the child at once.
func (c *Child) Kill() {
	_ = c.in.Close()
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

var (
	ackWant     = []byte("subscriptions/acknowledged")
	changedWant = []byte("tools/list_changed")
)

// OpenStream opens one held stream: a 2026-07-28 subscriptions/listen
// (read up to its acknowledgement) or, for HoldGET variants, a 2025-11-25
// session's GET stream.
func OpenStream(addr string, get bool) (*RawClient, error) {
	c, err := DialSize(addr, 2048)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*RawClient, error) {
		_ = c.Close()
		return nil, err
	}
	var req []byte
	if get {
		sid, err := Initialize(c, addr)
		if err != nil {
			return fail(err)
		}
		req = BuildRequest("GET", addr, "/mcp", []header{{"Accept", "text/event-stream"}, {"Mcp-Session-Id", sid}, {"Mcp-Protocol-Version", Version2025}}, "")
	} else {
		req = BuildRequest("POST", addr, "/mcp", Headers2026("subscriptions/listen", ""), BodyListen2026)
	}
	_ = c.Conn.SetDeadline(time.Now().Add(30 * time.Second))
	resp, err := c.Open(req)
	if err != nil {
		return fail(err)
	}
	if resp.Status != 200 {
		return fail(fmt.Errorf("stream: status %d", resp.Status))
	}
	if !get {
		if err := c.ReadUntil(ackWant, time.Now().Add(30*time.Second)); err != nil {
			return fail(fmt.Errorf("stream acknowledgement: %w", err))
		}
	}
	_ = c.Conn.SetDeadline(time.Time{})
	return c, nil
}

// OpenStreams opens n held streams with a few concurrent openers.
func OpenStreams(addr string, get bool, n int) ([]*RawClient, error) {
	const openers = 16
	conns := make([]*RawClient, n)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range openers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c, err := OpenStream(addr, get)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					continue
				}
				conns[i] = c
			}
		}()
	}
	for i := range n {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if first != nil {
		CloseAll(conns)
		return nil, first
	}
	return conns, nil
}

// CloseAll closes every stream.
func CloseAll(conns []*RawClient) {
	for _, c := range conns {
		if c != nil {
			_ = c.Close()
		}
	}
}

// FanOut asks the child to broadcast and returns how long until every
// stream received the list change, and how long the server's broadcast
// call took.
func FanOut(child *Child, conns []*RawClient) (total, server time.Duration, err error) {
	const readers = 8
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	deadline := time.Now().Add(60 * time.Second)
	start := time.Now()
	for r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := r; i < len(conns); i += readers {
				if err := conns[i].ReadUntil(changedWant, deadline); err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("stream %d: %w", i, err)
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	server, err = child.Broadcast()
	if err != nil {
		return 0, 0, err
	}
	wg.Wait()
	return time.Since(start), server, first
}
