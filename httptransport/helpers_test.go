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

	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The helpers shared by the package's internal tests and its external ones
// (package httptransport_test) have exported names: a helper package
// importing httptransport could not serve the internal tests (an import
// cycle), and test files are in no importer's build, so these names are no
// part of the API. Helpers only one side uses keep unexported names there.

// TestServer is a Handler on a real loopback HTTP server.
type TestServer struct {
	T          *testing.T
	Handler    *Handler
	Engine     *TestEngine
	URL        string
	HTTPServer *httptest.Server
	Client     *http.Client // the server's own: it speaks TLS and HTTP/2 when the server does

	Hijacked atomic.Int32 // connections taken over from net/http (park.go)
}

func NewTestServer(t *testing.T, opts *Options) *TestServer {
	t.Helper()
	return NewTestServerWith(t, opts, nil)
}

// NewTestServerWith mounts the handler behind wrap (a middleware), if any.
func NewTestServerWith(t *testing.T, opts *Options, wrap func(http.Handler) http.Handler) *TestServer {
	t.Helper()
	return StartTestServer(t, NewTestEngine(), opts, wrap, false)
}

// StartTestServer serves engine over HTTP/1.1, or over HTTP/2 with TLS when h2
// is set.
func StartTestServer(t *testing.T, e *TestEngine, opts *Options, wrap func(http.Handler) http.Handler, h2 bool) *TestServer {
	t.Helper()
	return startTestServer(t, nil, e, opts, wrap, h2)
}

// startTestServer is StartTestServer on a real loopback socket, or on mn
// (for a test in a synctest bubble) if mn is not nil.
func startTestServer(t *testing.T, mn *testutil.MemNet, e *TestEngine, opts *Options, wrap func(http.Handler) http.Handler, h2 bool) *TestServer {
	t.Helper()
	opts = withTestObserver(opts) // MCPMOUNT_TEST_OBSERVER (observe_internal_test.go)
	return serveTestHandler(t, mn, New(e, opts), e, wrap, nil, h2)
}

// ServeTestHandler serves h, made on e, behind wrap (a middleware), if any,
// on an http.Server that configure, if set, adjusts before it starts.
func ServeTestHandler(t *testing.T, h *Handler, e *TestEngine, wrap func(http.Handler) http.Handler, configure func(*http.Server), h2 bool) *TestServer {
	t.Helper()
	return serveTestHandler(t, nil, h, e, wrap, configure, h2)
}

// serveTestHandler is ServeTestHandler on a real loopback socket, or on mn
// if mn is not nil.
func serveTestHandler(t *testing.T, mn *testutil.MemNet, h *Handler, e *TestEngine, wrap func(http.Handler) http.Handler, configure func(*http.Server), h2 bool) *TestServer {
	t.Helper()
	var handler http.Handler = h
	if wrap != nil {
		handler = wrap(h)
	}
	srv := httptest.NewUnstartedServer(handler)
	if configure != nil {
		configure(srv.Config)
	}
	s := &TestServer{T: t, Handler: h, Engine: e, HTTPServer: srv}
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateHijacked {
			s.Hijacked.Add(1)
		}
	}
	srv.EnableHTTP2 = h2
	switch {
	case mn != nil:
		mn.Serve(srv, h2)
	case h2:
		srv.StartTLS()
	default:
		srv.Start()
	}
	s.Client = srv.Client()
	s.URL = srv.URL + "/mcp"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		s.Client.CloseIdleConnections()
		srv.CloseClientConnections()
		srv.Close()
	})
	return s
}

// ModernHeaders are the headers of a valid 2026-07-28 request for method.
func ModernHeaders(method string) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	h.Set("Mcp-Protocol-Version", Version20260728)
	h.Set("Mcp-Method", method)
	return h
}

// Meta is a valid 2026-07-28 _meta object.
const Meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// Do sends a request and returns the response with its body read.
func (s *TestServer) Do(method string, header http.Header, body string) (*http.Response, string) {
	s.T.Helper()
	return s.DoURL(method, s.URL, header, body)
}

func (s *TestServer) DoURL(method, url string, header http.Header, body string) (*http.Response, string) {
	s.T.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		s.T.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		s.T.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.T.Fatalf("reading body: %v", err)
	}
	return resp, string(b)
}

// Open sends a request and returns the response with its body unread.
func (s *TestServer) Open(ctx context.Context, method string, header http.Header, body string) *http.Response {
	s.T.Helper()
	req, err := http.NewRequestWithContext(ctx, method, s.URL, strings.NewReader(body))
	if err != nil {
		s.T.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		s.T.Fatalf("%s: %v", method, err)
	}
	s.T.Cleanup(func() { resp.Body.Close() })
	return resp
}

// RPCError decodes a JSON-RPC error body.
func RPCError(t *testing.T, body string) (id string, code int64, data json.RawMessage) {
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

// Events reads every SSE event (comments included) of a body.
func Events(t *testing.T, body string) []sse.Event {
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

// Messages returns the JSON-RPC messages of the non-comment events.
func Messages(t *testing.T, evs []sse.Event) []*jsonrpc.Message {
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

// Initialize opens a 2025-era session at version and returns its id.
func (s *TestServer) Initialize(version string) string {
	s.T.Helper()
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if resp.StatusCode != 200 {
		s.T.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		s.T.Fatalf("initialize: no Mcp-Session-Id; body %s", body)
	}
	resp, _ = s.Do("POST", SessionHeaders(sid, version), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if resp.StatusCode != http.StatusAccepted {
		s.T.Fatalf("initialized: %d", resp.StatusCode)
	}
	return sid
}

func SessionHeaders(sid, version string) http.Header {
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

// GetHeaders are the headers of a GET opening a session's stream.
func GetHeaders(sid, version string) http.Header {
	h := SessionHeaders(sid, version)
	h.Set("Accept", "text/event-stream")
	return h
}

// SSEReader wraps a streaming response body for event-by-event reading.
type SSEReader struct {
	T *testing.T
	R *sse.Reader
}

func NewSSEReader(t *testing.T, body io.Reader) *SSEReader {
	return &SSEReader{T: t, R: sse.NewReader(bufio.NewReader(body))}
}

// Next returns the next non-comment event.
func (r *SSEReader) Next() sse.Event {
	r.T.Helper()
	for {
		e, err := r.R.Next()
		if err != nil {
			r.T.Fatalf("reading SSE: %v", err)
		}
		if !e.IsComment {
			return e
		}
	}
}

// NextMessage returns the next event's JSON-RPC message, skipping priming
// events.
func (r *SSEReader) NextMessage() *jsonrpc.Message {
	r.T.Helper()
	for {
		e := r.Next()
		if len(e.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			r.T.Fatalf("event data %q: %v", e.Data, err)
		}
		return m
	}
}

// FaultStore is a shared SessionStore standing for a remote one in
// trouble: while a hang flag is set, that method waits for its context to
// end (a store that stopped answering); while a fail flag is set, it fails
// at once (an outage, not ErrNoSession).
type FaultStore struct {
	*MemorySessionStore
	HangGet, HangPut, HangTouch  atomic.Bool
	FailGet, FailPut, FailDelete atomic.Bool
}

func NewFaultStore() *FaultStore { return &FaultStore{MemorySessionStore: NewMemorySessionStore()} }

var errStoreDown = errors.New("store: connection refused")

func (s *FaultStore) Get(ctx context.Context, id string) (*SessionRecord, error) {
	switch {
	case s.HangGet.Load():
		<-ctx.Done()
		return nil, ctx.Err()
	case s.FailGet.Load():
		return nil, errStoreDown
	}
	return s.MemorySessionStore.Get(ctx, id)
}

func (s *FaultStore) Put(ctx context.Context, rec *SessionRecord, ttl time.Duration) error {
	switch {
	case s.HangPut.Load():
		<-ctx.Done()
		return ctx.Err()
	case s.FailPut.Load():
		return errStoreDown
	}
	return s.MemorySessionStore.Put(ctx, rec, ttl)
}

func (s *FaultStore) Touch(ctx context.Context, id string, ttl time.Duration) error {
	if s.HangTouch.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return s.MemorySessionStore.Touch(ctx, id, ttl)
}

func (s *FaultStore) Delete(ctx context.Context, id string) error {
	if s.FailDelete.Load() {
		return errStoreDown
	}
	return s.MemorySessionStore.Delete(ctx, id)
}

// ReportClosed makes srv (not started yet) report the remote address of
// each connection it closes on the returned channel.
func ReportClosed(srv *httptest.Server) <-chan string {
	closed := make(chan string, 64)
	srv.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateClosed {
			closed <- c.RemoteAddr().String()
		}
	}
	return closed
}

// WaitClosed waits up to 10 s for the server to close the connection whose
// client end is addr, failing with why.
func WaitClosed(t *testing.T, closed <-chan string, addr, why string) {
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
