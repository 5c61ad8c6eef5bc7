package httptransport

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/wire"
)

// StalledPost sends body as a POST with the given headers over a raw TCP
// connection with a tiny receive buffer, reads the response's headers, and
// never reads again: a client that stopped reading its call's stream.
func StalledPost(t *testing.T, s *TestServer, header http.Header, body string) net.Conn {
	t.Helper()
	addr := s.HTTPServer.Listener.Addr().String()
	conn := DialTinyBuffer(t, addr)
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", addr, len(body))
	for k, vs := range header {
		for _, v := range vs {
			fmt.Fprintf(conn, "%s: %s\r\n", k, v)
		}
	}
	fmt.Fprintf(conn, "\r\n%s", body)
	resp, err := http.ReadResponse(bufio.NewReaderSize(conn, 512), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("POST: %d", resp.StatusCode)
	}
	return conn
}

// ToolBlockedInWrite reports whether a write of a stream waits on its
// client's connection: the tool's own, or the flush of its coalesced
// notifications (then the tool waits for the stream's lock).
func ToolBlockedInWrite() bool {
	buf := make([]byte, 16<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "output.(*Stream)") && strings.Contains(g, "waitWrite") {
			return true
		}
	}
	return false
}

// TestCancelEndsBlockedWrite: a 2025 call whose client stopped reading
// blocks in Send once the connection's buffers are full; the client's
// notifications/cancelled ends that write at once, not at the per-write
// deadline (here ten minutes), and the engine's call returns.
func TestCancelEndsBlockedWrite(t *testing.T) {
	s := NewTestServer(t, &Options{WriteTimeout: 10 * time.Minute})
	sid := s.Initialize(Version20251125)
	StalledPost(t, s, SessionHeaders(sid, Version20251125),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":100000000},"_meta":{"progressToken":"p"}}}`)
	for deadline := time.Now().Add(20 * time.Second); !ToolBlockedInWrite(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call never blocked on its client")
		}
	}
	time.Sleep(2 * wire.StuckWrite)
	if resp, _ := s.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d", resp.StatusCode)
	}
	for deadline := time.Now().Add(20 * time.Second); GoroutinesIn("(*TestEngine).tool") > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the cancelled call is still blocked in its write 20 s later")
		}
	}
}
