package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// The listens benchmark (BenchmarkListens): many held 2026-07-28 listens
// through the go-sdk engine, served by a child process, opened from
// several loopback source addresses (each has one ephemeral port range:
// net.ipv4.ip_local_port_range, about 28,000 ports by default).

// ListenChild is the ChildEnv value of the listens benchmark's server.
const ListenChild = "listens-gosdk"

// StallURI is the resource that the clients that stop reading watch
// beside tools: one update of it (its params carry the URI) is larger
// than a socket's buffers, so that the write of it to such a client
// blocks, as it does once a client has stopped reading for a while.
var StallURI = "file:///stall/" + strings.Repeat("s", 256<<10)

// BodyListenStall is the listen of a client that will stop reading.
var BodyListenStall = `{"jsonrpc":"2.0","id":"S1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["` + StallURI + `"]},"_meta":{` + meta2026 + `}}}`

// RunListenChild serves a go-sdk server through the engine and obeys
// one-line commands on in: "mem" reports memory and goroutines, "change"
// adds a tool (one tools/list_changed to every listen, after the SDK's
// 10 ms debounce), "stall" updates StallURI, "quit" stops.
func RunListenChild(in io.Reader, out io.Writer) error {
	RaiseFileLimitTo(1 << 20)
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{
		Logger:             quiet,
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	srv.AddResource(&mcp.Resource{URI: StallURI, Name: "stall"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	e := gosdk.NewEngine(srv, &gosdk.Options{Logger: quiet})
	h := httptransport.New(e, &httptransport.Options{Logger: quiet})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// A fixed send buffer per connection (the kernel doubles it): on
	// loopback, whose segments are 64 KiB, autotuning would start it at
	// megabytes, and a client would have to miss that much before a
	// write to it blocked. Readers' writes are a few hundred bytes.
	hs := &http.Server{Handler: h, ConnState: func(c net.Conn, st http.ConnState) {
		if tc, ok := c.(*net.TCPConn); ok && st == http.StateNew {
			_ = tc.SetWriteBuffer(64 << 10)
		}
	}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = hs.Serve(ln)
	}()
	stop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = h.Shutdown(ctx)
		_ = hs.Close()
		<-done
		_ = e.Close()
	}
	fmt.Fprintf(out, "addr %s\n", ln.Addr())
	changes := 0
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		switch sc.Text() {
		case "mem":
			live, rss := MeasureMem()
			fmt.Fprintf(out, "mem %d %d %d\n", live, rss, runtime.NumGoroutine())
		case "change":
			startProfile()
			changes++
			mcp.AddTool(srv, &mcp.Tool{Name: "extra" + strconv.Itoa(changes)}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{}, nil, nil
			})
			fmt.Fprintln(out, "ok 0")
		case "stall":
			_ = srv.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: StallURI})
			fmt.Fprintln(out, "ok 0")
		case "quit":
			stopProfile()
			stop()
			fmt.Fprintln(out, "bye")
			return nil
		}
	}
	stop()
	return nil
}

// Goroutines asks the child for its goroutine count.
func (c *Child) Goroutines() (int, error) {
	line, err := c.command("mem")
	if err != nil {
		return 0, err
	}
	var live, rss int64
	var n int
	if _, err := fmt.Sscanf(line, "mem %d %d %d", &live, &rss, &n); err != nil {
		return 0, fmt.Errorf("mem: %q: %v", line, err)
	}
	return n, nil
}

// Do sends the child a command answered with "ok".
func (c *Child) Do(cmd string) error {
	line, err := c.command(cmd)
	if err == nil && !strings.HasPrefix(line, "ok") {
		err = fmt.Errorf("%s: %q", cmd, line)
	}
	return err
}

// portsPerSource is how many connections are opened from one loopback
// source address, below the default ephemeral port range's 28,232.
const portsPerSource = 20000

// SourceFor returns the loopback source address of the i-th connection:
// 127.0.0.1 for the first 20,000, 127.0.0.2 for the next, and so on.
func SourceFor(i int) net.IP {
	return net.IPv4(127, 0, 0, byte(1+i/portsPerSource))
}

// DialFrom connects to addr from the source address src; rcvbuf, if not
// zero, sets the socket's receive buffer before it connects.
func DialFrom(addr string, src net.IP, rcvbuf int) (*RawClient, error) {
	d := net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: src}}
	if rcvbuf > 0 {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			if err := c.Control(func(fd uintptr) {
				serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf)
			}); err != nil {
				return err
			}
			return serr
		}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &RawClient{Conn: c, br: bufio.NewReaderSize(c, 2048)}, nil
}

// OpenListen opens one listen with body from src, read up to the end of
// its acknowledgement.
func OpenListen(addr string, src net.IP, rcvbuf int, body string) (*RawClient, error) {
	c, err := DialFrom(addr, src, rcvbuf)
	if err != nil {
		return nil, err
	}
	req := BuildRequest("POST", addr, "/mcp", Headers2026("subscriptions/listen", ""), body)
	_ = c.Conn.SetDeadline(time.Now().Add(60 * time.Second))
	resp, err := c.Open(req)
	if err == nil && resp.Status != 200 {
		err = fmt.Errorf("listen: status %d", resp.Status)
	}
	if err == nil {
		err = c.ReadPast(ackWant)
	}
	if err == nil {
		err = c.ReadPast([]byte("\n\n")) // the rest of the acknowledgement
	}
	if err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("listen from %s: %w", src, err)
	}
	_ = c.Conn.SetDeadline(time.Time{})
	return c, nil
}

// ReadPast reads up to the end of the next occurrence of want, and not
// beyond (ReadUntil may), under the connection's deadline.
func (c *RawClient) ReadPast(want []byte) error {
	matched := 0
	for matched < len(want) {
		b, err := c.br.ReadByte()
		if err != nil {
			return err
		}
		switch {
		case b == want[matched]:
			matched++
		case b == want[0]:
			matched = 1
		default:
			matched = 0
		}
	}
	return nil
}

// OpenListens opens listens from..to-1 (indices into conns, which pick
// their source address) with 16 concurrent openers.
func OpenListens(addr string, conns []*RawClient, from, to, rcvbuf int, body string) error {
	var (
		wg    sync.WaitGroup
		next  atomic.Int64
		mu    sync.Mutex
		first error
	)
	next.Store(int64(from))
	for range 16 {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= to {
					return
				}
				c, err := OpenListen(addr, SourceFor(i), rcvbuf, body)
				if err != nil {
					mu.Lock()
					first = errors.Join(first, err)
					mu.Unlock()
					next.Store(int64(to)) // stop
					return
				}
				conns[i] = c
			}
		})
	}
	wg.Wait()
	return first
}

// ReadChange waits for one tools/list_changed on each of conns (nil ones
// skipped), with 8 readers, and returns when the last arrived, measured
// from start.
func ReadChange(conns []*RawClient, start time.Time) (time.Duration, error) {
	const readers = 8
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	deadline := time.Now().Add(60 * time.Second)
	for r := range readers {
		wg.Go(func() {
			for i := r; i < len(conns); i += readers {
				if conns[i] == nil {
					continue
				}
				if err := conns[i].ReadUntil(changedWant, deadline); err != nil {
					mu.Lock()
					first = errors.Join(first, fmt.Errorf("listen %d: %w", i, err))
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return time.Since(start), first
}

// RaiseFileLimitTo raises the limit on open files to at least n where the
// process may (the hard limit needs CAP_SYS_RESOURCE), and reports the
// soft limit in force.
func RaiseFileLimitTo(n uint64) uint64 {
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 0
	}
	if lim.Max < n {
		want := syscall.Rlimit{Cur: n, Max: n}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			return n
		}
	}
	if lim.Cur < lim.Max {
		lim.Cur = lim.Max
		_ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
	}
	_ = syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	return lim.Cur
}
