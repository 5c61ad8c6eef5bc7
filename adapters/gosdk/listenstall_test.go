package gosdk_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
)

// stalledListen is a listen whose client stops reading after the
// acknowledgement, on a socket with a small receive buffer.
type stalledListen struct {
	conn net.Conn
	br   *bufio.Reader
}

func openStalledListen(t *testing.T, addr, filter string) *stalledListen {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second, Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"notifications":` + filter + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	s := &stalledListen{conn: conn, br: bufio.NewReader(conn)}
	s.count(t, []byte("subscriptions/acknowledged"), nil)
	s.count(t, []byte("\n\n"), nil) // the rest of its event
	return s
}

// count reads until stop, counting the occurrences of each before it
// (each is short and stop is not part of it). It may read past stop.
func (s *stalledListen) count(t *testing.T, stop, each []byte) int {
	t.Helper()
	_ = s.conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	keep := max(len(stop), len(each))
	var carry []byte
	buf := make([]byte, 64<<10)
	n := 0
	for {
		k, err := s.br.Read(buf)
		if err != nil {
			t.Fatalf("reading the stalled listen: %v", err)
		}
		data := append(carry, buf[:k]...)
		end := len(data)
		i := bytes.Index(data, stop)
		if i >= 0 {
			end = i
		}
		if len(each) > 0 {
			n += bytes.Count(data[:end], each) - bytes.Count(carry[:min(len(carry), end)], each)
		}
		if i >= 0 {
			return n
		}
		carry = append([]byte(nil), data[max(0, len(data)-keep+1):]...)
	}
}

// TestStalledListensHoldNobody: listens whose clients stop reading, more
// of them than the engine has workers writing, get resource updates large
// enough to fill their sockets, which blocks the writes to them. A listen
// that reads still gets its notification at once (the test's deadline is
// well before the transport's WriteTimeout, which would free the stuck
// writes), and a stalled client that reads again gets the latest update
// of each resource it watches, not every update it missed: what waits for
// a client is one message per resource, whatever the number of changes.
func TestStalledListensHoldNobody(t *testing.T) {
	t.Parallel()
	const stalls, updates = 24, 10
	big := "file:///big/" + strings.Repeat("x", 64<<10)
	const small = "file:///small"
	server := mcp.NewServer(&mcp.Implementation{Name: "stalls", Version: "1.0.0"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	for _, u := range []string{big, small} {
		server.AddResource(&mcp.Resource{URI: u, Name: "r"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	}
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, &httptransport.Options{WriteTimeout: 5 * time.Minute})
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if tc, ok := c.(*net.TCPConn); ok && st == http.StateNew {
			_ = tc.SetWriteBuffer(4096) // so that one big update fills a stalled client's socket
		}
	}
	srv.Start()
	stopAtCleanup(t, h, srv, engine)
	addr := srv.Listener.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	var stalled []*stalledListen
	for range stalls {
		stalled = append(stalled, openStalledListen(t, addr, `{"resourceSubscriptions":["`+big+`","`+small+`"]}`))
	}
	reader, _ := openListen(ctx, t, srv.URL+"/mcp", "1", `{"resourceSubscriptions":["`+small+`"]}`)
	for range updates {
		if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: big}); err != nil {
			t.Fatal(err)
		}
	}
	if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: small}); err != nil {
		t.Fatal(err)
	}
	reader.until(t, notice{method: "notifications/resources/updated", uri: small, subID: "1"})

	for i, s := range stalled {
		got := s.count(t, []byte(small), []byte("file:///big/"))
		if got < 1 || got >= updates {
			t.Errorf("stalled listen %d got %d of the %d updates of the big resource, want fewer (coalesced) but at least the latest", i, got, updates)
		}
		s.conn.Close()
	}
}
