package httptransport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestObserverWrapsCallContext: the engine serves a call with the context
// StartCall returned, and the outcome carries the answer and the status
// it goes out with.
func TestObserverWrapsCallContext(t *testing.T) {
	t.Parallel()
	rec := &httptransport.Recorder{}
	s := httptransport.NewTestServer(t, &httptransport.Options{Observer: rec})
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "echo")
	resp, body := s.Do(http.MethodPost, h, `{"jsonrpc":"2.0","id":"a1","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},`+httptransport.Meta+`}}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"who":"observed"`) {
		t.Fatalf("echo: %d %s; want the identity the observer put in the call's context", resp.StatusCode, body)
	}
	resp, _ = s.Do(http.MethodPost, httptransport.ModernHeaders("nosuch/method"), `{"jsonrpc":"2.0","id":2,"method":"nosuch/method","params":{`+httptransport.Meta+`}}`)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown method: %d, want 404", resp.StatusCode)
	}
	rec.Mu.Lock()
	defer rec.Mu.Unlock()
	if len(rec.Calls) != 2 || len(rec.Outcomes) != 2 {
		t.Fatalf("%d calls, %d outcomes, want 2 of each", len(rec.Calls), len(rec.Outcomes))
	}
	c := rec.Calls[0]
	if c.Method != "tools/call" || c.ID.Raw() != `"a1"` || c.Transport != httptransport.TransportModern || c.Version != httptransport.Version20260728 ||
		c.SessionID != "" || !strings.HasPrefix(c.RemoteAddr, "127.0.0.1:") || c.Proto != "HTTP/1.1" || !json.Valid(c.Params) {
		t.Errorf("call info %+v", c)
	}
	if out := rec.Outcomes[0]; out.Status != http.StatusOK || out.Response == nil || out.Response.Error != nil || out.Cancelled {
		t.Errorf("echo outcome %+v", out)
	}
	if out := rec.Outcomes[1]; out.Status != http.StatusNotFound || out.Response.Error == nil || out.Response.Error.Code != jsonrpc.CodeMethodNotFound {
		t.Errorf("unknown method outcome %+v, want 404 and -32601", out)
	}
}

// TestObserverSessionsStreamsRefusals: a 2025-era session's start and
// end, its GET stream, and refusals by status and reason.
func TestObserverSessionsStreamsRefusals(t *testing.T) {
	t.Parallel()
	rec := &httptransport.Recorder{}
	s := httptransport.NewTestServer(t, &httptransport.Options{Observer: rec})
	sid := s.Initialize(httptransport.Version20251125)
	rec.WaitCount(t, httptransport.Event{Kind: httptransport.EventSessionOpened, SessionID: sid}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	get := s.Open(ctx, http.MethodGet, httptransport.GetHeaders(sid, httptransport.Version20251125), "")
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET: %d", get.StatusCode)
	}
	rec.WaitCount(t, httptransport.Event{Kind: httptransport.EventStreamOpened, Stream: httptransport.StreamGet}, 1)
	cancel()
	get.Body.Close()
	rec.WaitCount(t, httptransport.Event{Kind: httptransport.EventStreamClosed, Stream: httptransport.StreamGet}, 1)

	if resp, _ := s.Do(http.MethodDelete, httptransport.SessionHeaders(sid, httptransport.Version20251125), ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	rec.WaitCount(t, httptransport.Event{Kind: httptransport.EventSessionClosed, SessionID: sid}, 1)
	if resp, _ := s.Do(http.MethodPost, httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("POST to the deleted session: %d, want 404", resp.StatusCode)
	}
	rec.WaitCount(t, httptransport.Event{Kind: httptransport.EventRefused, Status: http.StatusNotFound, Reason: "session_not_found"}, 1)
	if resp, _ := s.Do(http.MethodPost, httptransport.ModernHeaders("tools/list"), `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("2026-07-28 request without clientCapabilities: %d, want 400", resp.StatusCode)
	}
	rec.WaitCount(t, httptransport.Event{Kind: httptransport.EventRefused, Status: http.StatusBadRequest, Reason: "invalid_meta"}, 1)
}

// TestObserverListenStreams: a 2026-07-28 listen counts as a held stream
// from its start to its end, whether the engine holds it (ErrHold, the
// stream parked) or blocks in Serve.
func TestObserverListenStreams(t *testing.T) {
	t.Parallel()
	for _, hold := range []bool{true, false} {
		t.Run(map[bool]string{true: "ErrHold", false: "blocking"}[hold], func(t *testing.T) {
			rec := &httptransport.Recorder{}
			e := httptransport.NewTestEngine()
			e.Hold = hold
			s := httptransport.StartTestServer(t, e, &httptransport.Options{Observer: rec}, nil, false)
			ctx, cancel := context.WithCancel(context.Background())
			resp := s.Open(ctx, http.MethodPost, httptransport.ModernHeaders("subscriptions/listen"), httptransport.ListenBody)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("listen: %d", resp.StatusCode)
			}
			httptransport.NewSSEReader(t, resp.Body).Next() // the acknowledgement
			if got := rec.Count(httptransport.Event{Kind: httptransport.EventStreamOpened, Stream: httptransport.StreamListen}); got != 1 {
				t.Errorf("%d listen streams opened, want 1", got)
			}
			if got := rec.Count(httptransport.Event{Kind: httptransport.EventStreamClosed, Stream: httptransport.StreamListen}); got != 0 {
				t.Errorf("listen stream closed while open")
			}
			cancel()
			resp.Body.Close()
			rec.WaitCount(t, httptransport.Event{Kind: httptransport.EventStreamClosed, Stream: httptransport.StreamListen}, 1)
		})
	}
}
