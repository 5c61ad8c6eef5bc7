package httptransport

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// gatedInitEngine holds initialize until gate closes, then refuses it
// (refuse) or accepts it at 2025-06-18, setting the session's state.
type gatedInitEngine struct {
	*TestEngine
	gate   chan struct{}
	refuse bool
}

func (e gatedInitEngine) Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	if call.Request.Method != "initialize" {
		return e.TestEngine.Serve(ctx, call)
	}
	<-e.gate
	if e.refuse {
		return jsonrpc.NewError(call.Request.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "refused")), nil
	}
	call.Session.SetState([]byte(`{"initialized":true}`))
	return result(call.Request.ID, map[string]any{"protocolVersion": Version20250618, "capabilities": map[string]any{}, "serverInfo": map[string]any{"name": "t", "version": "1"}}), nil
}

// TestRequestDuringInitialize: a session's id goes out with the headers of
// an initialize the engine is still deciding (HeaderFlushDelay). A request
// naming it meanwhile finds no session (404) and starts no copy of it: a
// refused handshake leaves nothing to use, and an accepted one is served
// with the version and state it negotiated.
func TestRequestDuringInitialize(t *testing.T) {
	t.Parallel()
	for _, refuse := range []bool{true, false} {
		e := gatedInitEngine{NewTestEngine(), make(chan struct{}), refuse}
		s := StartTestServer(t, e.TestEngine, &Options{HeaderFlushDelay: 10 * time.Millisecond}, nil, false)
		s.Handler.engine = e
		resp := s.Open(context.Background(), "POST", SessionHeaders("", ""), `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		sid := resp.Header.Get("Mcp-Session-Id")
		if sid == "" {
			t.Fatal("no session id on the early headers")
		}
		if r, _ := s.Do("POST", SessionHeaders(sid, ""), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); r.StatusCode != http.StatusNotFound {
			t.Errorf("refuse=%v: a request during initialize: %d, want 404", refuse, r.StatusCode)
		}
		close(e.gate)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		r, body := s.Do("POST", SessionHeaders(sid, ""), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"state"}}`)
		switch {
		case refuse && r.StatusCode != http.StatusNotFound:
			t.Errorf("a session whose initialize the engine refused serves: %d %s", r.StatusCode, body)
		case !refuse && (r.StatusCode != http.StatusOK || !strings.Contains(body, `initialized`)):
			t.Errorf("the accepted session: %d %s, want its state", r.StatusCode, body)
		case !refuse && liveOf(t, s, sid).sess.Version != Version20250618:
			t.Errorf("the accepted session serves at %s, want the negotiated %s", liveOf(t, s, sid).sess.Version, Version20250618)
		}
	}
}
