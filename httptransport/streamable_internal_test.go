package httptransport

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// OpenGET opens session sid's standalone stream (2025-11-25) until the
// test ends.
func (s *TestServer) OpenGET(t *testing.T, sid string) *SSEReader {
	t.Helper()
	h := GetHeaders(sid, Version20251125)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	resp := s.Open(ctx, "GET", h, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %v", resp.StatusCode, resp.Header)
	}
	return NewSSEReader(t, resp.Body)
}

// TestSessionExpiry: an idle session is ended, and its id then gets 404.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		s := StartBubbleServer(t, mn, NewTestEngine(), &Options{SessionIdleTimeout: 40 * time.Millisecond}, nil, false)
		sid := s.Initialize(Version20251125)
		deadline := time.Now().Add(5 * time.Second)
		for {
			resp, _ := s.Do("POST", SessionHeaders(sid, Version20251125), `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
			if resp.StatusCode == 404 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("session never expired")
			}
			time.Sleep(100 * time.Millisecond)
		}
		s.Handler.mu.Lock()
		n := len(s.Handler.live)
		s.Handler.mu.Unlock()
		if n != 0 {
			t.Errorf("%d live sessions after expiry", n)
		}
	})
}

// TestRefusedDuplicateKeepsNothing: a request refused because its id is
// in flight leaves no stream behind in the session (each such refusal
// would otherwise hold one until the session ended).
func TestRefusedDuplicateKeepsNothing(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	h := SessionHeaders(sid, Version20251125)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"s"}}}`))
		req.Header = h
		if resp, err := s.Client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-s.Engine.Started
	for range 20 {
		if resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); !strings.Contains(body, "already in flight") {
			t.Fatalf("duplicate id: %d %s", resp.StatusCode, body)
		}
	}
	s.Handler.mu.Lock()
	ls := s.Handler.live[sid]
	s.Handler.mu.Unlock()
	ls.mu.Lock()
	n := len(ls.streams)
	ls.mu.Unlock()
	if n != 1 {
		t.Errorf("%d call streams in the session, want 1 (the call in flight)", n)
	}
	cancel()
	s.Do("DELETE", h, "")
	<-s.Engine.Cancelled
}

// panickyEngine panics in Notify.
type panickyEngine struct{ *TestEngine }

func (panickyEngine) Notify(context.Context, *Session, *jsonrpc.Message) { panic("notify exploded") }

// TestNotifyPanicSurvived: an engine that panics on a client notification
// costs the client nothing: the POST gets its 202, and the session serves
// on.
func TestNotifyPanicSurvived(t *testing.T) {
	t.Parallel()
	te := NewTestEngine()
	s := StartTestServer(t, te, &Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, nil, false)
	s.Handler.engine = panickyEngine{te}
	sid := s.Initialize(Version20251125)
	h := SessionHeaders(sid, Version20251125)
	if resp, err := s.Client.Do(func() *http.Request {
		req, _ := http.NewRequest("POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
		req.Header = h
		return req
	}()); err != nil || resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notification to a panicking engine: %v %v", resp, err)
	}
	if resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != 200 {
		t.Errorf("the session after the panic: %d %s", resp.StatusCode, body)
	}
}

// TestRefusedServerRequestForgotten: a server request Send could not send
// (here to a POST that takes only JSON) leaves nothing waiting for its
// answer; each refused one (the SDK's keepalive pings on a long call, say)
// stayed registered until the call ended.
func TestRefusedServerRequestForgotten(t *testing.T) {
	t.Parallel()
	s := NewTestServer(t, nil)
	sid := s.Initialize(Version20251125)
	s.Handler.mu.Lock()
	ls := s.Handler.live[sid]
	s.Handler.mu.Unlock()
	if ls == nil {
		t.Fatal("session not live")
	}
	st := s.Handler.newStream(nil, acceptance{json: true}, output.Role{})
	call := &Call{Request: &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.Int64ID(9), Method: "tools/call"}, Version: Version20251125, live: ls, out: st, ctx: context.Background()}
	for i := range 3 {
		ping := &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.Int64ID(int64(i)), Method: "ping"}
		if err := call.Send(context.Background(), ping); !errors.Is(err, ErrNoStream) {
			t.Fatalf("Send: %v, want ErrNoStream", err)
		}
	}
	ls.mu.Lock()
	n := len(ls.pending)
	ls.mu.Unlock()
	if n != 0 {
		t.Errorf("%d refused server requests still await answers", n)
	}
}
