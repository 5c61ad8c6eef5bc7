package httptransport

import (
	"net"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// DialTinyBuffer connects to addr with a receive buffer of 4 KiB, so that
// a client that stops reading fills the server's writes soon; the
// connection is closed at the test's end.
func DialTinyBuffer(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		if err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		}); err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// GoroutinesIn counts the goroutines whose stack holds fn.
func GoroutinesIn(fn string) int {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn) {
			n++
		}
	}
	return n
}
