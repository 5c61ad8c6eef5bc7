package testutil

import (
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// connBuffer is how many bytes a memConn holds, each way, that its peer
// has not read yet: a write waits only once that much waits to be read,
// as a socket's does once its buffers are full.
const connBuffer = 256 << 10

// memPipe returns the two ends of a buffered in-memory connection whose
// waits (sync.Cond, time.AfterFunc) are durable in a synctest bubble.
func memPipe(a, b *net.TCPAddr) (*memConn, *memConn) {
	ab, ba := newPipeBuffer(), newPipeBuffer()
	return &memConn{in: ba, out: ab, local: a, remote: b}, &memConn{in: ab, out: ba, local: b, remote: a}
}

// memConn is one end of a memPipe, with the addresses of a loopback TCP
// connection (the transport parses the peer's).
type memConn struct {
	in, out       *pipeBuffer
	local, remote *net.TCPAddr
}

func (c *memConn) Read(p []byte) (int, error)  { return c.in.read(p) }
func (c *memConn) Write(p []byte) (int, error) { return c.out.write(p) }
func (c *memConn) LocalAddr() net.Addr         { return c.local }
func (c *memConn) RemoteAddr() net.Addr        { return c.remote }

// Close ends both directions: the peer reads what was written, then EOF;
// its writes fail.
func (c *memConn) Close() error {
	c.in.close()
	c.out.close()
	return nil
}

func (c *memConn) SetDeadline(t time.Time) error {
	c.in.setDeadline(t, true)
	c.out.setDeadline(t, false)
	return nil
}

func (c *memConn) SetReadDeadline(t time.Time) error  { c.in.setDeadline(t, true); return nil }
func (c *memConn) SetWriteDeadline(t time.Time) error { c.out.setDeadline(t, false); return nil }

// pipeBuffer is one direction of a memPipe: its writer's end and its
// reader's, each with its deadline.
type pipeBuffer struct {
	mu       sync.Mutex
	changed  *sync.Cond // data, room, a close or a deadline
	data     []byte
	closed   bool // by either end: reads drain then get EOF, writes fail
	deadline [2]time.Time
	timer    [2]*time.Timer
}

const (
	writeSide = iota
	readSide
)

func newPipeBuffer() *pipeBuffer {
	b := &pipeBuffer{}
	b.changed = sync.NewCond(&b.mu)
	return b
}

func (b *pipeBuffer) read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.data) == 0 {
		switch {
		case b.closed:
			return 0, io.EOF
		case b.passedLocked(readSide):
			return 0, os.ErrDeadlineExceeded
		}
		b.changed.Wait()
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	b.changed.Broadcast()
	return n, nil
}

func (b *pipeBuffer) write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for n < len(p) {
		switch {
		case b.closed:
			return n, net.ErrClosed
		case b.passedLocked(writeSide):
			return n, os.ErrDeadlineExceeded
		}
		room := connBuffer - len(b.data)
		if room == 0 {
			b.changed.Wait()
			continue
		}
		m := min(room, len(p)-n)
		b.data = append(b.data, p[n:n+m]...)
		n += m
		b.changed.Broadcast()
	}
	return n, nil
}

func (b *pipeBuffer) close() {
	b.mu.Lock()
	b.closed = true
	b.changed.Broadcast()
	b.mu.Unlock()
}

// setDeadline sets the read side's deadline, or the write side's, and
// wakes its waits when it comes.
func (b *pipeBuffer) setDeadline(t time.Time, read bool) {
	side := writeSide
	if read {
		side = readSide
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.timer[side] != nil {
		b.timer[side].Stop()
		b.timer[side] = nil
	}
	b.deadline[side] = t
	if !t.IsZero() {
		b.timer[side] = time.AfterFunc(time.Until(t), func() {
			b.mu.Lock()
			b.changed.Broadcast()
			b.mu.Unlock()
		})
	}
	b.changed.Broadcast()
}

func (b *pipeBuffer) passedLocked(side int) bool {
	d := b.deadline[side]
	return !d.IsZero() && !time.Now().Before(d)
}
