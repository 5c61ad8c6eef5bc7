package bench

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

// fakeServer answers every request of reqLen bytes with resp, allocating
// what it likes: only the client is measured.
func fakeServer(t *testing.T, resp []byte, reqLen int) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, reqLen)
				for {
					if _, err := io.ReadFull(conn, buf); err != nil {
						return
					}
					if _, err := conn.Write(resp); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// TestRawClientAllocatesNothing checks what the tables rely on: the raw
// client, its answer checks included, allocates nothing per request, for a
// JSON answer and a chunked SSE one, so B/op and allocs/op are the server's.
func TestRawClientAllocatesNothing(t *testing.T) {
	jsonBody := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello, world"}]}}`
	jsonResp := []byte("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(jsonBody)) + "\r\n\r\n" + jsonBody)
	var sse strings.Builder
	sse.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
	chunk := func(s string) { fmt.Fprintf(&sse, "%x\r\n%s\r\n", len(s), s) }
	for i := 1; i <= ProgressN; i++ {
		chunk(fmt.Sprintf("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p1\",\"progress\":%d,\"total\":10}}\n\n", i))
	}
	chunk(`data: {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"done"}]}}` + "\n\n")
	sse.WriteString("0\r\n\r\n")
	for _, tc := range []struct {
		name  string
		resp  []byte
		check func(Response) (int, error)
	}{{"json", jsonResp, checkEcho}, {"sse", []byte(sse.String()), checkProgress}} {
		addr := fakeServer(t, tc.resp, len(echo2026("127.0.0.1:1")))
		c, err := Dial(addr)
		if err != nil {
			t.Fatal(err)
		}
		req := echo2026("127.0.0.1:1")
		for range 3 {
			r, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tc.check(r); err != nil {
				t.Fatal(err)
			}
		}
		allocs := testing.AllocsPerRun(2000, func() {
			r, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tc.check(r); err != nil {
				t.Fatal(err)
			}
		})
		t.Logf("%s: client allocs/op %.3f", tc.name, allocs)
		if allocs > 0.05 {
			t.Errorf("%s: the raw client allocates %.2f per request", tc.name, allocs)
		}
		c.Close()
	}
}
