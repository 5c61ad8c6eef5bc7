package httptransport

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Requests served inside a testing/synctest bubble, where no real network
// may be used: the handler runs on a goroutine of its own, as net/http
// would run it, and writes to a ResponseWriter whose bytes reach the test
// through a channel (a durable block, so the bubble's clock moves while
// the test waits for them).

// bubbleResponse is a response being written in the bubble; it reads as
// its body.
type bubbleResponse struct {
	w      *chanWriter
	cancel context.CancelFunc // the client leaves
	rest   []byte             // unread part of the last chunk
}

// chanWriter is an http.ResponseWriter that can flush, sending each write
// on out.
type chanWriter struct {
	header  http.Header
	status  int
	headerC chan struct{} // closed when the status is set
	out     chan []byte   // closed when the handler has returned
}

func (w *chanWriter) Header() http.Header { return w.header }

func (w *chanWriter) WriteHeader(code int) {
	select {
	case <-w.headerC:
	default:
		w.status = code
		close(w.headerC)
	}
}

func (w *chanWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.out <- append([]byte(nil), b...)
	return len(b), nil
}

func (w *chanWriter) Flush() { w.WriteHeader(http.StatusOK) }

// bubbleDo starts serving a request to h in the bubble.
func bubbleDo(h http.Handler, method, target string, header http.Header, body string) *bubbleResponse {
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequestWithContext(ctx, method, target, strings.NewReader(body))
	for k, v := range header {
		r.Header[k] = v
	}
	w := &chanWriter{header: http.Header{}, headerC: make(chan struct{}), out: make(chan []byte, 4096)}
	go func() {
		defer close(w.out)
		h.ServeHTTP(w, r)
		w.WriteHeader(http.StatusOK)
	}()
	return &bubbleResponse{w: w, cancel: cancel}
}

// Status waits for the response's status.
func (b *bubbleResponse) Status() int {
	<-b.w.headerC
	return b.w.status
}

// Header waits for the response's status, and returns its header.
func (b *bubbleResponse) Header() http.Header {
	<-b.w.headerC
	return b.w.header
}

func (b *bubbleResponse) Read(p []byte) (int, error) {
	for len(b.rest) == 0 {
		chunk, ok := <-b.w.out
		if !ok {
			return 0, io.EOF
		}
		b.rest = chunk
	}
	n := copy(p, b.rest)
	b.rest = b.rest[n:]
	return n, nil
}

// Body waits for the whole body.
func (b *bubbleResponse) Body(t *testing.T) string {
	t.Helper()
	data, err := io.ReadAll(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// SSE reads the response as an event stream.
func (b *bubbleResponse) SSE(t *testing.T) *SSEReader {
	return NewSSEReader(t, bufio.NewReader(b))
}

// bubbleInitialize opens a 2025-11-25 session on h and returns its id.
func bubbleInitialize(t *testing.T, h http.Handler) string {
	t.Helper()
	resp := bubbleDo(h, "POST", "/mcp", SessionHeaders("", Version20251125), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	body := resp.Body(t)
	sid := resp.Header().Get("Mcp-Session-Id")
	if resp.Status() != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q: %s", resp.Status(), sid, body)
	}
	if done := bubbleDo(h, "POST", "/mcp", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); done.Status() != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", done.Status())
	}
	return sid
}

// nextMessageOrNone returns the next JSON-RPC message on r, or nil once
// the stream ends.
func nextMessageOrNone(t *testing.T, r *SSEReader) (*jsonrpc.Message, string) {
	t.Helper()
	for {
		e, err := r.R.Next()
		if err != nil {
			return nil, ""
		}
		if e.IsComment || len(e.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			t.Fatalf("event data %q: %v", e.Data, err)
		}
		return m, e.ID
	}
}

// nextMessageWithin is nextMessageOrNone, failing the test if no message
// or end comes within d of the bubble's clock.
func nextMessageWithin(t *testing.T, r *SSEReader, d time.Duration) (*jsonrpc.Message, string) {
	t.Helper()
	type next struct {
		m  *jsonrpc.Message
		id string
	}
	got := make(chan next, 1)
	go func() {
		m, id := nextMessageOrNone(t, r)
		got <- next{m, id}
	}()
	select {
	case n := <-got:
		return n.m, n.id
	case <-time.After(d):
		t.Fatalf("no message within %v", d)
		return nil, ""
	}
}
