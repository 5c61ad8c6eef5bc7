package redisstore_test

import (
	"context"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/redisstore"
)

// proxy forwards TCP connections to upstream. Each direction of each
// connection open at the time can be held (what it reads is kept, not
// forwarded, until released), as a frozen peer or a lost flow would;
// with blackhole set, connections accepted later are never forwarded nor
// answered. Everything is closed at the test's end.
type proxy struct {
	ln       net.Listener
	upstream string
	done     chan struct{}
	wg       sync.WaitGroup

	mu        sync.Mutex
	conns     []*proxyConn
	closers   []net.Conn
	blackhole bool
}

type proxyConn struct {
	held       [2]atomic.Bool // toServer, toClient
	client, up net.Conn
}

const (
	toServer = 0
	toClient = 1
)

func newProxy(t *testing.T, upstream string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, upstream: upstream, done: make(chan struct{})}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		close(p.done)
		_ = ln.Close()
		p.mu.Lock()
		for _, c := range p.closers {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	for {
		a, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.closers = append(p.closers, a)
		bh := p.blackhole
		p.mu.Unlock()
		if bh {
			p.wg.Go(func() { _, _ = io.Copy(io.Discard, a) })
			continue
		}
		b, err := net.Dial("tcp", p.upstream)
		if err != nil {
			_ = a.Close()
			continue
		}
		pc := &proxyConn{client: a, up: b}
		p.mu.Lock()
		p.closers = append(p.closers, b)
		p.conns = append(p.conns, pc)
		p.mu.Unlock()
		p.wg.Go(func() { p.pipe(b, a, &pc.held[toServer]) })
		p.wg.Go(func() { p.pipe(a, b, &pc.held[toClient]) })
	}
}

// pipe copies src to dst, holding what it read while held is set.
func (p *proxy) pipe(dst, src net.Conn, held *atomic.Bool) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			return
		}
		for held.Load() {
			select {
			case <-p.done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

// hold holds (or with on false releases) direction dir of the
// connections open now.
func (p *proxy) hold(dir int, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.held[dir].Store(on)
	}
}

// freeze holds both directions of the connections open now, for good.
func (p *proxy) freeze() {
	p.hold(toServer, true)
	p.hold(toClient, true)
}

// cut closes the connections open now, as a Redis restart would.
func (p *proxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.client.Close()
		_ = c.up.Close()
	}
}

func (p *proxy) setBlackhole(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blackhole = on
}

// proxiedStore returns a Store on a client of its own that reaches Redis
// through a new proxy; all are closed at the test's end.
func proxiedStore(t *testing.T, pingEvery time.Duration) (*redisstore.Store, *proxy) {
	t.Helper()
	p := newProxy(t, redisAddr)
	c := redis.NewClient(&redis.Options{Addr: p.addr()})
	t.Cleanup(func() { _ = c.Close() })
	s := redisstore.New(c, &redisstore.Options{Prefix: testPrefix(t)})
	if pingEvery > 0 {
		redisstore.SetPingEvery(s, pingEvery)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, p
}

// TestRelaySubscribeByContext: while new connections to Redis are never
// answered (the relay's first one, or the one go-redis opens when the
// relay's connection is cut), three concurrent Subscribes each return by
// their own context, and an unsubscribe returns at once.
func TestRelaySubscribeByContext(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first bool // the first connection is the one never answered
	}{{"first connection", true}, {"connection cut", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, p := proxiedStore(t, 0)
			var unsub func()
			if tc.first {
				p.setBlackhole(true)
			} else {
				var err error
				unsub, err = s.Subscribe(ctx5(t), "a", func([]byte) {})
				if err != nil {
					t.Fatal(err)
				}
				p.setBlackhole(true)
				p.cut()
				time.Sleep(50 * time.Millisecond) // go-redis connects again
			}
			concurrentSubscribes(t, s)
			if unsub != nil {
				start := time.Now()
				unsub()
				if took := time.Since(start); took > 100*time.Millisecond {
					t.Errorf("unsubscribe took %v", took)
				}
			}
			// Close waits for the connection attempt under way, which the
			// client's read timeout (3 s) ends.
			start := time.Now()
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if took := time.Since(start); took > 4*time.Second {
				t.Errorf("Close took %v", took)
			}
		})
	}
}

// concurrentSubscribes runs three Subscribes at once, with contexts of
// 2 s, 100 ms and 100 ms, and checks that each fails within 500 ms of its
// context's end.
func concurrentSubscribes(t *testing.T, s *redisstore.Store) {
	t.Helper()
	var wg sync.WaitGroup
	for i, d := range []time.Duration{2 * time.Second, 100 * time.Millisecond, 100 * time.Millisecond} {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			start := time.Now()
			u, err := s.Subscribe(ctx, "s"+strconv.Itoa(i), func([]byte) {})
			took := time.Since(start)
			if err == nil {
				u()
				t.Errorf("Subscribe %d succeeded with Redis not answering", i)
			}
			if took > d+500*time.Millisecond {
				t.Errorf("Subscribe %d (ctx %v) returned after %v", i, d, took.Round(time.Millisecond))
			}
		})
		time.Sleep(20 * time.Millisecond)
	}
	wg.Wait()
}

// TestRelayFrozenClose: with the relay's connection frozen (and new
// connections never answered), Subscribes return by their contexts, and
// an unsubscribe and Close return at once.
func TestRelayFrozenClose(t *testing.T) {
	s, p := proxiedStore(t, 0)
	unsub, err := s.Subscribe(ctx5(t), "a", func([]byte) {})
	if err != nil {
		t.Fatal(err)
	}
	p.freeze()
	p.setBlackhole(true)
	concurrentSubscribes(t, s)
	start := time.Now()
	unsub()
	if took := time.Since(start); took > 100*time.Millisecond {
		t.Errorf("unsubscribe took %v", took)
	}
	start = time.Now()
	if err := s.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("Close took %v", took)
	}
}

// TestRelayHalfOpen: when the relay's connection goes silent (frozen at
// the proxy) while new connections work, the relay notices within two
// ping intervals and subscribes again on a new connection: a message
// published a little after that is delivered.
func TestRelayHalfOpen(t *testing.T) {
	const every = 200 * time.Millisecond
	s, p := proxiedStore(t, every)
	pub := newClient(t)
	channel := testPrefix(t) + "relay:s"
	in := newInbox()
	unsub, err := s.Subscribe(ctx5(t), "s", in.deliver)
	if err != nil {
		t.Fatal(err)
	}
	defer unsub()
	if err := pub.Publish(ctx5(t), channel, "before").Err(); err != nil {
		t.Fatal(err)
	}
	if got := in.next(t); got != "before" {
		t.Fatalf("got %q", got)
	}
	p.freeze()
	frozen := time.Now()
	// Publish every 50 ms until one arrives; one published 3 intervals
	// after the freeze must.
	limit := 3*every + time.Second
	for i := 0; ; i++ {
		if err := pub.Publish(ctx5(t), channel, "m"+strconv.Itoa(i)).Err(); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-in.ch:
			t.Logf("%s delivered %v after the freeze", m, time.Since(frozen).Round(time.Millisecond))
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Since(frozen) > limit {
			t.Fatalf("nothing delivered within %v of the freeze", limit)
		}
	}
}

// TestRelayLateConfirmation: when a first subscriber gives up before its
// SUBSCRIBE is confirmed and leaves, the late confirmation of that
// SUBSCRIBE does not release the next first subscriber of the channel,
// whose own SUBSCRIBE has not reached Redis yet.
func TestRelayLateConfirmation(t *testing.T) {
	s, p := proxiedStore(t, 0)
	c := newClient(t)
	channel := testPrefix(t) + "relay:s"
	// The relay connection is open and idle.
	warm, err := s.Subscribe(ctx5(t), "warm", func([]byte) {})
	if err != nil {
		t.Fatal(err)
	}
	defer warm()

	// A's SUBSCRIBE reaches Redis; its confirmation is held. A gives up
	// and leaves: its channel's UNSUBSCRIBE reaches Redis too.
	p.hold(toClient, true)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := s.Subscribe(ctx, "s", func([]byte) {}); err == nil {
		t.Fatal("A's Subscribe succeeded with its confirmation held")
	}
	waitFor(t, func() bool { return numSub(t, c, channel) == 0 }, "A's UNSUBSCRIBE")

	// B's SUBSCRIBE is held on its way to Redis; A's late confirmation
	// arrives.
	p.hold(toServer, true)
	in := newInbox()
	type result struct {
		unsub func()
		err   error
	}
	done := make(chan result, 1)
	go func() {
		u, err := s.Subscribe(ctx5(t), "s", in.deliver)
		done <- result{u, err}
	}()
	time.Sleep(100 * time.Millisecond) // B's SUBSCRIBE is sent
	p.hold(toClient, false)
	select {
	case r := <-done:
		if r.err == nil {
			defer r.unsub()
		}
		t.Fatalf("B's Subscribe returned (%v) before its SUBSCRIBE reached Redis", r.err)
	case <-time.After(300 * time.Millisecond):
	}

	// B's SUBSCRIBE reaches Redis: B returns, and is delivered.
	p.hold(toServer, false)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer r.unsub()
	if err := c.Publish(ctx5(t), channel, "hello").Err(); err != nil {
		t.Fatal(err)
	}
	if got := in.next(t); got != "hello" {
		t.Errorf("B got %q", got)
	}
}
