package testutil

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
)

// MemNet is an in-memory network of loopback addresses for servers and
// clients in a testing/synctest bubble: its connections' reads, writes
// and deadlines wait on a sync.Cond and timers of the bubble, so the
// bubble's clock moves on while they wait (a real socket's wait does not
// count as blocked, and would stop the clock). Each way a connection
// holds up to 256 KiB not yet read; past that a write waits, as a
// socket's does once its buffers are full. The zero MemNet is empty and
// ready to use.
type MemNet struct {
	mu        sync.Mutex
	listeners map[string]*memListener
	ports     int // the last port handed out
}

// Listen returns a listener on a fresh 127.0.0.1 address of the network.
func (n *MemNet) Listen() net.Listener {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.listeners == nil {
		n.listeners = make(map[string]*memListener)
	}
	n.ports++
	l := &memListener{
		addr:   &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 20000 + n.ports},
		conns:  make(chan net.Conn),
		closed: make(chan struct{}),
	}
	n.listeners[l.addr.String()] = l
	return l
}

// DialContext connects to the listener at addr ("127.0.0.1:port"), with
// the signature of http.Transport's DialContext.
func (n *MemNet) DialContext(ctx context.Context, _, addr string) (net.Conn, error) {
	n.mu.Lock()
	l := n.listeners[addr]
	n.ports++
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000 + n.ports}
	n.mu.Unlock()
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: local, Err: fmt.Errorf("nothing listens at %s", addr)}
	}
	client, server := memPipe(local, l.addr)
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
	case <-ctx.Done():
		return nil, fmt.Errorf("dial %s: %w", addr, ctx.Err())
	}
}

// Serve starts srv, made with httptest.NewUnstartedServer, on a listener
// of the network (over TLS if tls is set; srv.EnableHTTP2 is honoured) in
// place of its real socket, and points srv.Client() at the network.
func (n *MemNet) Serve(srv *httptest.Server, tls bool) {
	if err := srv.Listener.Close(); err != nil {
		panic("closing the real listener: " + err.Error())
	}
	srv.Listener = n.Listen()
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	srv.Client().Transport.(*http.Transport).DialContext = n.DialContext
}

// Client is an HTTP client whose connections are made on the network.
func (n *MemNet) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: n.DialContext}}
}

type memListener struct {
	addr   *net.TCPAddr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.addr, Err: net.ErrClosed}
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *memListener) Addr() net.Addr { return l.addr }
