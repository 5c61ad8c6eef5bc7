package mcpgo_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// openListen opens a 2026-07-28 subscriptions/listen for tool-list changes
// on a raw connection, reads its acknowledgement and returns the stream's
// reader (the connection stays open until the test closes it).
func openListen(t *testing.T, addr string, id int) (net.Conn, *sse.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, listenOn(t, conn, addr, id)
}

// listenOn sends the listen of openListen on conn and returns the
// stream's reader once the acknowledgement is read.
func listenOn(t *testing.T, conn net.Conn, addr string, id int) *sse.Reader {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{%s}}}`, id, modernMeta)
	fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"+
		"Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body)
	_ = conn.SetReadDeadline(time.Now().Add(wait))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("listen: %s", resp.Status)
	}
	r := sse.NewReader(resp.Body)
	m := nextMessage(t, r)
	if m.Method != "notifications/subscriptions/acknowledged" || !strings.Contains(string(m.Params), fmt.Sprintf(`"io.modelcontextprotocol/subscriptionId":%d`, id)) {
		t.Fatalf("first message %s %s", m.Method, m.Params)
	}
	return r
}

func nextMessage(t *testing.T, r *sse.Reader) *jsonrpc.Message {
	t.Helper()
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.IsComment || len(e.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// TestListenHeldWithoutGoroutine: idle listens keep no goroutine of the
// engine or of mcp-go (mcp-go's listen handler, which blocks until its
// request ends, is ended once the acknowledgement is out), and a
// tool-list change still reaches every one of them, tagged with its
// subscription id.
func TestListenHeldWithoutGoroutine(t *testing.T) {
	f := newFixture(t, nil)
	addr := strings.TrimPrefix(f.url, "http://")
	const n = 40
	conns := make([]net.Conn, n)
	readers := make([]*sse.Reader, n)
	for i := range n {
		conns[i], readers[i] = openListen(t, addr, i+1)
	}
	waitNoHandlerGoroutines(t, fmt.Sprintf("%d idle listens", n))
	f.srv.AddTool(newEchoTool("after-listens"))
	for i, r := range readers {
		_ = conns[i].SetReadDeadline(time.Now().Add(wait))
		m := nextMessage(t, r)
		if m.Method != "notifications/tools/list_changed" || !strings.Contains(string(m.Params), fmt.Sprintf(`"io.modelcontextprotocol/subscriptionId":%d`, i+1)) {
			t.Errorf("listen %d: %s %s", i+1, m.Method, m.Params)
		}
	}
}

// waitNoHandlerGoroutines waits until no goroutine runs the engine's
// code or mcp-go's (handlers and calls still ending), and fails the test
// if some are left for what after wait.
func waitNoHandlerGoroutines(t *testing.T, what string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		held := handlerGoroutines()
		if held == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of the engine or mcp-go for %s", held, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// handlerGoroutines counts the goroutines running the engine's code or
// mcp-go's (the transport's, which watch parked connections, are not
// counted).
func handlerGoroutines() int {
	buf := make([]byte, 1<<22)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "mark3labs/mcp-go") || strings.Contains(g, "mcpmount/adapters/mcpgo.") {
			n++
		}
	}
	return n
}
