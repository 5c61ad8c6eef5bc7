package httptransport

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// server is a Handler on a real loopback HTTP server.
type server struct {
	t      *testing.T
	h      *Handler
	engine *testEngine
	url    string
	srv    *httptest.Server
	client *http.Client // the server's own: it speaks TLS and HTTP/2 when the server does

	hijacked atomic.Int32 // connections taken over from net/http (park.go)
}

func newServer(t *testing.T, opts *Options) *server {
	t.Helper()
	return newServerWith(t, opts, nil)
}

// newServerWith mounts the handler behind wrap (a middleware), if any.
func newServerWith(t *testing.T, opts *Options, wrap func(http.Handler) http.Handler) *server {
	t.Helper()
	return startServer(t, newTestEngine(), opts, wrap, false)
}

// startServer serves engine over HTTP/1.1, or over HTTP/2 with TLS when h2
// is set.
func startServer(t *testing.T, e *testEngine, opts *Options, wrap func(http.Handler) http.Handler, h2 bool) *server {
	t.Helper()
	opts = withTestObserver(opts) // MCPMOUNT_TEST_OBSERVER (observe_test.go)
	h := New(e, opts)
	var handler http.Handler = h
	if wrap != nil {
		handler = wrap(h)
	}
	srv := httptest.NewUnstartedServer(handler)
	s := &server{t: t, h: h, engine: e, srv: srv}
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateHijacked {
			s.hijacked.Add(1)
		}
	}
	if h2 {
		srv.EnableHTTP2 = true
		srv.StartTLS()
	} else {
		srv.Start()
	}
	s.client = srv.Client()
	s.url = srv.URL + "/mcp"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		s.client.CloseIdleConnections()
		srv.CloseClientConnections()
		srv.Close()
	})
	return s
}

// modernHeaders are the headers of a valid 2026-07-28 request for method.
func modernHeaders(method string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", Version20260728)
	h.Set("Mcp-Method", method)
	return h
}

// meta is a valid 2026-07-28 _meta object.
const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// do sends a request and returns the response with its body read.
func (s *server) do(method string, header http.Header, body string) (*http.Response, string) {
	s.t.Helper()
	return s.doURL(method, s.url, header, body)
}

func (s *server) doURL(method, url string, header http.Header, body string) (*http.Response, string) {
	s.t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatalf("reading body: %v", err)
	}
	return resp, string(b)
}

// open sends a request and returns the response with its body unread.
func (s *server) open(ctx context.Context, method string, header http.Header, body string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, s.url, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s: %v", method, err)
	}
	s.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// rpcError decodes a JSON-RPC error body.
func rpcError(t *testing.T, body string) (id string, code int64, data json.RawMessage) {
	t.Helper()
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *jsonrpc.Error  `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.Error == nil {
		t.Fatalf("not a JSON-RPC error: %q (%v)", body, err)
	}
	return string(m.ID), m.Error.Code, m.Error.Data
}

// events reads every SSE event (comments included) of a body.
func events(t *testing.T, body string) []sse.Event {
	t.Helper()
	r := sse.NewReader(strings.NewReader(body))
	var out []sse.Event
	for {
		e, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("reading SSE: %v", err)
		}
		out = append(out, e)
	}
}

// messages returns the JSON-RPC messages of the non-comment events.
func messages(t *testing.T, evs []sse.Event) []*jsonrpc.Message {
	t.Helper()
	var out []*jsonrpc.Message
	for _, e := range evs {
		if e.IsComment || len(e.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			t.Fatalf("event data %q: %v", e.Data, err)
		}
		out = append(out, m)
	}
	return out
}

// initialize opens a 2025-era session at version and returns its id.
func (s *server) initialize(version string) string {
	s.t.Helper()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	resp, body := s.do("POST", h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != 200 {
		s.t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		s.t.Fatalf("initialize: no Mcp-Session-Id; body %s", body)
	}
	resp, _ = s.do("POST", sessionHeaders(sid, version), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusAccepted {
		s.t.Fatalf("initialized: %d", resp.StatusCode)
	}
	return sid
}

func sessionHeaders(sid, version string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		h.Set("Mcp-Session-Id", sid)
	}
	if version >= Version20250618 {
		h.Set("Mcp-Protocol-Version", version)
	}
	return h
}

// getHeaders are the headers of a GET opening a session's stream.
func getHeaders(sid, version string) http.Header {
	h := sessionHeaders(sid, version)
	h.Set("Accept", "text/event-stream")
	return h
}

// sseReader wraps a streaming response body for event-by-event reading.
type sseReader struct {
	t *testing.T
	r *sse.Reader
}

func newSSEReader(t *testing.T, body io.Reader) *sseReader {
	return &sseReader{t: t, r: sse.NewReader(bufio.NewReader(body))}
}

// next returns the next non-comment event.
func (r *sseReader) next() sse.Event {
	r.t.Helper()
	for {
		e, err := r.r.Next()
		if err != nil {
			r.t.Fatalf("reading SSE: %v", err)
		}
		if !e.IsComment {
			return e
		}
	}
}

// nextMessage returns the next event's JSON-RPC message, skipping priming
// events.
func (r *sseReader) nextMessage() *jsonrpc.Message {
	r.t.Helper()
	for {
		e := r.next()
		if len(e.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			r.t.Fatalf("event data %q: %v", e.Data, err)
		}
		return m
	}
}

// faultStore is a shared SessionStore standing for a remote one in
// trouble: while a hang flag is set, that method waits for its context to
// end (a store that stopped answering); while a fail flag is set, it fails
// at once (an outage, not ErrNoSession).
type faultStore struct {
	*MemorySessionStore
	hangGet, hangPut, hangTouch  atomic.Bool
	failGet, failPut, failDelete atomic.Bool
}

func newFaultStore() *faultStore { return &faultStore{MemorySessionStore: NewMemorySessionStore()} }

var errStoreDown = errors.New("store: connection refused")

func (s *faultStore) Get(ctx context.Context, id string) (*SessionRecord, error) {
	switch {
	case s.hangGet.Load():
		<-ctx.Done()
		return nil, ctx.Err()
	case s.failGet.Load():
		return nil, errStoreDown
	}
	return s.MemorySessionStore.Get(ctx, id)
}

func (s *faultStore) Put(ctx context.Context, rec *SessionRecord, ttl time.Duration) error {
	switch {
	case s.hangPut.Load():
		<-ctx.Done()
		return ctx.Err()
	case s.failPut.Load():
		return errStoreDown
	}
	return s.MemorySessionStore.Put(ctx, rec, ttl)
}

func (s *faultStore) Touch(ctx context.Context, id string, ttl time.Duration) error {
	if s.hangTouch.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.MemorySessionStore.Touch(ctx, id, ttl)
}

func (s *faultStore) Delete(ctx context.Context, id string) error {
	if s.failDelete.Load() {
		return errStoreDown
	}
	return s.MemorySessionStore.Delete(ctx, id)
}

// reportClosed makes srv (not started yet) report the remote address of
// each connection it closes on the returned channel.
func reportClosed(srv *httptest.Server) <-chan string {
	closed := make(chan string, 64)
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- c.RemoteAddr().String()
		}
	}
	return closed
}

// waitClosed waits up to 10 s for the server to close the connection whose
// client end is addr, failing with why.
func waitClosed(t *testing.T, closed <-chan string, addr, why string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case got := <-closed:
			if got == addr {
				return
			}
		case <-timeout:
			t.Fatal(why)
		}
	}
}
