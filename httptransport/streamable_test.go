package httptransport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

var visibleASCII = regexp.MustCompile(`^[\x21-\x7E]+$`)

// TestSessionLifecycle: initialize mints a visible-ASCII session id; a
// request without it gets 400, with a bogus one 404; DELETE ends the
// session and later requests get 404; a fresh initialize works again.
func TestSessionLifecycle(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	if !visibleASCII.MatchString(sid) || len(sid) < 20 {
		t.Fatalf("session id %q", sid)
	}
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), list)
	if resp.StatusCode != 200 || !strings.Contains(body, `"tools"`) {
		t.Fatalf("tools/list: %d %s", resp.StatusCode, body)
	}
	resp, body = s.Do("POST", httptransport.SessionHeaders("", httptransport.Version20251125), list)
	if resp.StatusCode != 400 {
		t.Errorf("no session id: %d %s", resp.StatusCode, body)
	}
	resp, body = s.Do("POST", httptransport.SessionHeaders("bogus", httptransport.Version20251125), list)
	if _, code, _ := httptransport.RPCError(t, body); resp.StatusCode != 404 || code != jsonrpc.CodeSessionNotFound {
		t.Errorf("bogus session id: %d %s", resp.StatusCode, body)
	}
	resp, _ = s.Do("DELETE", httptransport.SessionHeaders(sid, httptransport.Version20251125), "")
	if resp.StatusCode != 200 {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	resp, _ = s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), list)
	if resp.StatusCode != 404 {
		t.Errorf("after DELETE: %d", resp.StatusCode)
	}
	if sid2 := s.Initialize(httptransport.Version20251125); sid2 == sid {
		t.Error("a new session reused the old id")
	}
}

// TestSessionProtocolVersionHeader: an unsupported MCP-Protocol-Version
// gets 400 on POST, GET and DELETE (and the refused DELETE leaves the
// session alone); a supported one differing from the negotiated version
// is served.
func TestSessionProtocolVersionHeader(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20250618)
	h := httptransport.SessionHeaders(sid, httptransport.Version20250618)
	h.Set("Mcp-Protocol-Version", "2099-01-01")
	if resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != 400 {
		t.Errorf("unsupported version: %d %s", resp.StatusCode, body)
	}
	h.Set("Mcp-Protocol-Version", httptransport.Version20251125)
	if resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != 200 {
		t.Errorf("a supported version differing from the session's: %d %s", resp.StatusCode, body)
	}
	h.Set("Mcp-Protocol-Version", "2099-01-01")
	if resp, _ := s.Do("GET", h, ""); resp.StatusCode != 400 {
		t.Errorf("GET with unsupported version: %d", resp.StatusCode)
	}
	if resp, body := s.Do("DELETE", h, ""); resp.StatusCode != 400 {
		t.Errorf("DELETE with unsupported version: %d %s", resp.StatusCode, body)
	}
	if resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20250618), `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); resp.StatusCode != 200 {
		t.Errorf("after a refused DELETE the session is gone: %d %s", resp.StatusCode, body)
	}
}

// TestSessionUnknownMethodIsNot404: in a session, an unknown method is a
// JSON-RPC error on 200, never 404 (which clients read as "session gone").
func TestSessionUnknownMethodIsNot404(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":1,"method":"foo/bar"}`)
	if _, code, _ := httptransport.RPCError(t, body); resp.StatusCode != 200 || code != jsonrpc.CodeMethodNotFound {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

// TestSessionBatches: 2025-03-26 sessions accept batches, each response
// exactly once; later versions refuse them, and initialize never batches.
func TestSessionBatches(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20250326)
	batch := `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"b"}}},{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}]`
	resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20250326), batch)
	if resp.StatusCode != 200 {
		t.Fatalf("batch: %d %s", resp.StatusCode, body)
	}
	seen := map[string]int{}
	for _, m := range httptransport.Messages(t, httptransport.Events(t, body)) {
		seen[m.ID.Raw()]++
	}
	if seen["1"] != 1 || seen["2"] != 1 || len(seen) != 2 {
		t.Errorf("responses by id %v; body %s", seen, body)
	}
	h := httptransport.SessionHeaders(sid, httptransport.Version20250326)
	h.Set("Accept", "application/json")
	resp, body = s.Do("POST", h, batch)
	var arr []json.RawMessage
	if err := json.Unmarshal([]byte(body), &arr); resp.StatusCode != 200 || err != nil || len(arr) != 2 {
		t.Errorf("JSON batch: %d %s", resp.StatusCode, body)
	}
	if resp, _ := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20250326), `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`); resp.StatusCode != 202 {
		t.Errorf("notification batch: %d", resp.StatusCode)
	}
	// Invalid members get an error each (JSON-RPC 2.0 "Batch"), with their
	// id when it can be read; a batch of one request is still answered as an
	// array.
	for _, tc := range []struct{ body, want string }{
		{`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"1.0","id":2,"method":"tools/list"}]`, `1:ok 2:-32600`},
		{`[1,2]`, `null:-32600 null:-32600`},
		{`[{"jsonrpc":"2.0","id":7,"method":"tools/list"}]`, `7:ok`},
		{`[{"jsonrpc":"2.0","method":"notifications/initialized"},[{"jsonrpc":"2.0","id":3,"method":"tools/list"}]]`, `null:-32600`},
	} {
		resp, body := s.Do("POST", h, tc.body)
		var got []string
		var arr []struct {
			ID    json.RawMessage `json:"id"`
			Error *jsonrpc.Error  `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &arr); resp.StatusCode != 200 || err != nil {
			t.Errorf("%s: %d %s (%v)", tc.body, resp.StatusCode, body, err)
			continue
		}
		for _, m := range arr {
			switch {
			case m.Error != nil:
				got = append(got, string(m.ID)+":"+strconv.Itoa(int(m.Error.Code)))
			default:
				got = append(got, string(m.ID)+":ok")
			}
		}
		slices.Sort(got)
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: answered %v, want %s; body %s", tc.body, got, tc.want, body)
		}
	}
	resp, body = s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20250326), `[{"jsonrpc":"2.0","id":"a","method":"tools/list"},{"id":"b"}]`)
	seen = map[string]int{}
	for _, m := range httptransport.Messages(t, httptransport.Events(t, body)) {
		seen[m.ID.Raw()]++
		if m.ID.Raw() == `"b"` && (m.Error == nil || m.Error.Code != jsonrpc.CodeInvalidRequest) {
			t.Errorf("invalid member on SSE: %+v", m)
		}
	}
	if resp.StatusCode != 200 || seen[`"a"`] != 1 || seen[`"b"`] != 1 {
		t.Errorf("batch with an invalid member on SSE: %d %v; body %s", resp.StatusCode, seen, body)
	}
	sid2 := s.Initialize(httptransport.Version20250618)
	if resp, _ := s.Do("POST", httptransport.SessionHeaders(sid2, httptransport.Version20250618), batch); resp.StatusCode != 400 {
		t.Errorf("batch on 2025-06-18: %d", resp.StatusCode)
	}
	h = httptransport.SessionHeaders("", "")
	if resp, _ := s.Do("POST", h, `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}]`); resp.StatusCode != 400 {
		t.Errorf("initialize in a batch: %d", resp.StatusCode)
	}
}

// TestStandaloneStream: GET opens the session's stream; session-level
// notifications arrive there; a second GET gets 409; Accept without
// text/event-stream gets 406.
func TestStandaloneStream(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	h := httptransport.GetHeaders(sid, httptransport.Version20251125)
	r := s.OpenGET(t, sid)
	if again, _ := s.Do("GET", h, ""); again.StatusCode != http.StatusConflict {
		t.Errorf("second GET: %d", again.StatusCode)
	}
	s.Engine.Broadcast()
	if m := r.NextMessage(); m.Method != "notifications/tools/list_changed" {
		t.Errorf("got %+v", m)
	}
	h.Set("Accept", "application/json")
	if resp, _ := s.Do("GET", h, ""); resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("GET accepting JSON only: %d", resp.StatusCode)
	}
}

// TestSessionLevelRequest: a request the engine sends outside any call
// goes out on the GET stream under an id of the transport's, and the
// client's answer reaches the engine's Reply under the engine's own id;
// a second answer with the same id reaches nobody. The engine's
// notifications/cancelled for such a request names the client's id.
func TestSessionLevelRequest(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	r := s.OpenGET(t, sid)
	if err := s.Engine.SessionRequest(sid, &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: jsonrpc.Int64ID(7), Method: "roots/list"}); err != nil {
		t.Fatal(err)
	}
	m := r.NextMessage()
	if m.Method != "roots/list" || !m.ID.IsValid() || m.ID.Raw() == "7" {
		t.Fatalf("request on the GET stream: %+v", m)
	}
	answer := `{"jsonrpc":"2.0","id":` + m.ID.Raw() + `,"result":{"roots":[]}}`
	for i := range 2 {
		if resp, _ := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), answer); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("answer: %d", resp.StatusCode)
		}
		select {
		case got := <-s.Engine.Replies:
			if i > 0 {
				t.Fatalf("second answer delivered: %+v", got)
			}
			if got.ID.Raw() != "7" || string(got.Result) != `{"roots":[]}` {
				t.Fatalf("reply %+v", got)
			}
		case <-time.After(100 * time.Millisecond):
			if i == 0 {
				t.Fatal("the answer did not reach the engine")
			}
		}
	}

	// The engine gives up on a request: the client hears of it under the
	// id it saw, and a late answer reaches nobody.
	if err := s.Engine.SessionRequest(sid, &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: jsonrpc.Int64ID(8), Method: "roots/list"}); err != nil {
		t.Fatal(err)
	}
	m = r.NextMessage()
	if err := s.Engine.SessionRequest(sid, jsonrpc.NewNotification("notifications/cancelled", json.RawMessage(`{"requestId":8,"reason":"timeout"}`))); err != nil {
		t.Fatal(err)
	}
	c := r.NextMessage()
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
		Reason    string     `json:"reason"`
	}
	if err := json.Unmarshal(c.Params, &p); err != nil || c.Method != "notifications/cancelled" || p.RequestID != m.ID || p.Reason != "timeout" {
		t.Fatalf("cancelled %s %s, want requestId %s", c.Method, c.Params, m.ID.Raw())
	}
	s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":`+m.ID.Raw()+`,"result":{"roots":[]}}`)
	select {
	case got := <-s.Engine.Replies:
		t.Fatalf("answer to a cancelled request delivered: %+v", got)
	case <-time.After(100 * time.Millisecond):
	}
}

// TestSessionCancellation: dropping a 2025-era POST does not cancel the
// call; notifications/cancelled does.
func TestSessionCancellation(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"slow-1","method":"tools/call","params":{"name":"slow","arguments":{"text":"a"}}}`))
		req.Header = httptransport.SessionHeaders(sid, httptransport.Version20251125)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-s.Engine.Started
	cancel()
	select {
	case <-s.Engine.Cancelled:
		t.Fatal("a dropped connection cancelled a 2025-era call")
	case <-time.After(200 * time.Millisecond):
	}
	resp, _ := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow-1","reason":"user"}}`)
	if resp.StatusCode != 202 {
		t.Fatalf("cancelled: %d", resp.StatusCode)
	}
	select {
	case <-s.Engine.Cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled did not cancel the call")
	}
	if err := <-s.Engine.SendErrs; err == nil {
		t.Error("Send after cancellation succeeded")
	}
}

// TestServerToClientRequest: a sampling request travels on the call's own
// stream with a session-unique id; the client's answer, POSTed later, gets
// 202 and reaches the waiting call under the engine's id.
func TestServerToClientRequest(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	resp := s.Open(context.Background(), "POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"sample"}}`)
	r := httptransport.NewSSEReader(t, resp.Body)
	req := r.NextMessage()
	if req.Method != "sampling/createMessage" || !req.ID.IsValid() {
		t.Fatalf("got %+v", req)
	}
	answer := `{"jsonrpc":"2.0","id":` + req.ID.Raw() + `,"result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}`
	if resp, body := s.Do("POST", httptransport.SessionHeaders(sid, httptransport.Version20251125), answer); resp.StatusCode != 202 {
		t.Fatalf("answer: %d %s", resp.StatusCode, body)
	}
	final := r.NextMessage()
	if final.ID != jsonrpc.Int64ID(5) || !strings.Contains(string(final.Result), "assistant") {
		t.Errorf("final %s %s", final.ID, final.Result)
	}
}

// TestStatelessLegacy: with Options.Stateless, initialize mints no session
// and any request is served on its own.
func TestStatelessLegacy(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{Stateless: true})
	h := httptransport.SessionHeaders("", "")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") != "" || !strings.Contains(body, "2025-11-25") {
		t.Fatalf("initialize: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	h.Set("Mcp-Protocol-Version", httptransport.Version20251125)
	resp, body = s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"text":"x"`) {
		t.Fatalf("call: %d %s", resp.StatusCode, body)
	}
	h.Del("Mcp-Protocol-Version")
	if resp, _ := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); resp.StatusCode != 200 {
		t.Errorf("no version header (assumed 2025-03-26): %d", resp.StatusCode)
	}
	if resp, _ := s.Do("DELETE", h, ""); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d", resp.StatusCode)
	}
	// The standalone GET a 2025-era client sends after initialize: 405,
	// never a 2024-11-05 session.
	h.Set("Accept", "text/event-stream")
	h.Set("Mcp-Protocol-Version", httptransport.Version20251125)
	if resp, body := s.Do("GET", h, ""); resp.StatusCode != http.StatusMethodNotAllowed || strings.Contains(body, "event: endpoint") {
		t.Errorf("stateless GET: %d %s", resp.StatusCode, body)
	}
	// A session id (one a client kept from a stateful deployment) is
	// ignored on POST; GET and DELETE still have no session to act on.
	h = httptransport.SessionHeaders("KEPT-FROM-BEFORE", httptransport.Version20251125)
	if resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"y"}}}`); resp.StatusCode != 200 || !strings.Contains(body, `"text":"y"`) {
		t.Errorf("POST with a session id: %d %s", resp.StatusCode, body)
	}
	for _, method := range []string{"GET", "DELETE"} {
		h.Set("Accept", "text/event-stream")
		if resp, _ := s.Do(method, h, ""); resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s with a session id: %d", method, resp.StatusCode)
		}
	}
}

// TestStatelessAbortCancels: a stateless 2025-era call has no session to
// cancel it through, so dropping its POST cancels it.
func TestStatelessAbortCancels(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{Stateless: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"x1","method":"tools/call","params":{"name":"slow","arguments":{"text":"st"}}}`))
		req.Header = httptransport.SessionHeaders("", httptransport.Version20251125)
		if resp, err := s.Client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	if got := <-s.Engine.Started; got != "st" {
		t.Fatalf("started %q", got)
	}
	cancel()
	select {
	case got := <-s.Engine.Cancelled:
		if got != "st" {
			t.Errorf("cancelled %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stateless call still runs 5s after its POST was dropped")
	}
}

// TestSessionIDFreeOnceAnswered: once a client has a call's answer, the
// call is no longer in flight, so a request reusing its id is served (only
// an id still in flight is refused), whatever the timing.
func TestSessionIDFreeOnceAnswered(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20250618)
	h := httptransport.SessionHeaders(sid, httptransport.Version20250618)
	h.Set("Accept", "application/json")
	for i := range 300 {
		resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if resp.StatusCode != 200 || strings.Contains(body, `"error"`) {
			t.Fatalf("call %d reusing an answered id: %d %s", i, resp.StatusCode, body)
		}
	}
}

// TestBatchJSONClientLeaves: a 2025-03-26 batch answered as one JSON array
// whose client leaves while its calls run on (they outlive the POST in a
// session): the calls' late answers and the array's writing do not race,

// TestBatchMessagesBounded: a 2025-03-26 batch of more messages than
// Options.MaxBatchMessages (100 by default) gets 400 and one -32600 error,
// and costs the server little: a 256 KiB body of two-byte invalid members
// ("1,") used to be decoded into a message, an error and an encoded answer
// each, all held at once, some 700 MiB allocated for 131,071 error
// answers. A batch at the bound is served, and the option moves it.
func TestBatchMessagesBounded(t *testing.T) {
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20250326)
	h := httptransport.SessionHeaders(sid, httptransport.Version20250326)
	h.Set("Accept", "application/json")

	const bodySize = 256 << 10
	junk := "[" + strings.Repeat("1,", bodySize/2-2) + "1]"
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resp, body := s.Do("POST", h, junk)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*uint64(len(junk)) {
		t.Errorf("a %d KiB batch of junk cost %d MiB", len(junk)>>10, alloc>>20)
	}
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("batch of %d junk members: %d and %d bytes, want 400 and one -32600 error", bodySize/2-1, resp.StatusCode, len(body))
	} else if _, code, _ := httptransport.RPCError(t, body); code != jsonrpc.CodeInvalidRequest {
		t.Errorf("batch of %d junk members: %s, want -32600", bodySize/2-1, body)
	}

	list := func(n int) string {
		members := make([]string, n)
		for i := range members {
			members[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, i+1)
		}
		return "[" + strings.Join(members, ",") + "]"
	}
	answers := func(body string) int {
		var arr []json.RawMessage
		if json.Unmarshal([]byte(body), &arr) != nil {
			return -1
		}
		return len(arr)
	}
	if resp, body := s.Do("POST", h, list(100)); resp.StatusCode != 200 || answers(body) != 100 {
		t.Errorf("batch of 100: %d, %d answers", resp.StatusCode, answers(body))
	}
	if resp, body := s.Do("POST", h, list(101)); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "101") {
		t.Errorf("batch of 101: %d %s", resp.StatusCode, body)
	}

	s2 := httptransport.NewTestServer(t, &httptransport.Options{MaxBatchMessages: 3})
	sid2 := s2.Initialize(httptransport.Version20250326)
	h2 := httptransport.SessionHeaders(sid2, httptransport.Version20250326)
	h2.Set("Accept", "application/json")
	if resp, body := s2.Do("POST", h2, list(3)); resp.StatusCode != 200 || answers(body) != 3 {
		t.Errorf("MaxBatchMessages 3, batch of 3: %d %s", resp.StatusCode, body)
	}
	if resp, _ := s2.Do("POST", h2, list(4)); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("MaxBatchMessages 3, batch of 4: %d", resp.StatusCode)
	}
	s3 := httptransport.NewTestServer(t, &httptransport.Options{MaxBatchMessages: -1})
	sid3 := s3.Initialize(httptransport.Version20250326)
	h3 := httptransport.SessionHeaders(sid3, httptransport.Version20250326)
	h3.Set("Accept", "application/json")
	if resp, body := s3.Do("POST", h3, list(150)); resp.StatusCode != 200 || answers(body) != 150 {
		t.Errorf("MaxBatchMessages -1, batch of 150: %d, %d answers", resp.StatusCode, answers(body))
	}
}

// which go test -race checks, and the session serves on.
func TestBatchJSONClientLeaves(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	s.Engine.Gate = make(chan struct{})
	sid := s.Initialize(httptransport.Version20250326)
	h := httptransport.SessionHeaders(sid, httptransport.Version20250326)
	h.Set("Accept", "application/json")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"remember","arguments":{"text":"a"}}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"count":2000},"_meta":{"progressToken":1}}}]`))
		req.Header = h
		if resp, err := s.Client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-s.Engine.Started
	cancel()
	<-done
	close(s.Engine.Gate) // the calls go on, answering into the batch
	if resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); resp.StatusCode != 200 {
		t.Errorf("the session after its batch's client left: %d %s", resp.StatusCode, body)
	}
}

// TestServerRequestToJSONOnlyClient: a 2025-era call whose POST accepts
// only JSON has no stream for a server-to-client request: Send fails at
// once (ErrNoStream), so the engine answers instead of waiting forever for
// a reply that cannot come.
func TestServerRequestToJSONOnlyClient(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20251125)
	h := httptransport.SessionHeaders(sid, httptransport.Version20251125)
	h.Set("Accept", "application/json")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample","arguments":{"text":"s"}}}`))
	req.Header = h
	resp, err := s.Client.Do(req)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), httptransport.ErrNoStream.Error()) {
		t.Errorf("answer %d %s, want the engine's error naming ErrNoStream", resp.StatusCode, body)
	}
}

// TestBatchJSONOnlyResponses: a batch answered as JSON is an array of the
// requests' responses only (JSON-RPC 2.0 "Batch"); notifications the calls
// send have no place in it and are dropped, and a server request fails at
// once, as for any JSON-only POST.
func TestBatchJSONOnlyResponses(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	sid := s.Initialize(httptransport.Version20250326)
	h := httptransport.SessionHeaders(sid, httptransport.Version20250326)
	h.Set("Accept", "application/json")
	resp, body := s.Do("POST", h, `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":1}}},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"text":"s"}}}]`)
	var arr []*jsonrpc.Message
	if err := json.Unmarshal([]byte(body), &arr); resp.StatusCode != 200 || err != nil || len(arr) != 2 {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, m := range arr {
		if !m.IsResponse() {
			t.Errorf("a batch's JSON answer holds %s", m.Method)
		}
		if m.ID.Raw() == "2" && (m.Error == nil || !strings.Contains(m.Error.Message, httptransport.ErrNoStream.Error())) {
			t.Errorf("the server request in a JSON batch: %+v", m)
		}
	}
	// Over SSE the same batch carries the notifications.
	h.Set("Accept", "text/event-stream")
	_, body = s.Do("POST", h, `[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"progress","arguments":{"count":2},"_meta":{"progressToken":1}}}]`)
	if n := strings.Count(body, "notifications/progress"); n != 2 {
		t.Errorf("SSE batch: %d progress notifications: %s", n, body)
	}
}
