package httptransport_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestModernSilentCallSendsHeadersEarly: a 2026-07-28 tools/call whose
// tool stays silent (no progress) has its response start at the header
// flush delay (1 s) under default Options, so a client or proxy with a
// first-byte timeout (go-sdk #1155 gives the client 5 s; this one gives 3)
// keeps it. The client then drops it, which cancels the tool.
func TestModernSilentCallSendsHeadersEarly(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "slow")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", s.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"silent"},`+httptransport.Meta+`}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := s.Client.Do(req)
	if err == nil {
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("silent call: %d %s, want 200 text/event-stream", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		resp.Body.Close()
	}
	cancel()
	if err != nil {
		t.Fatalf("a silent 2026-07-28 tools/call sent no response headers within 3 s with default Options: %v", err)
	}
	select {
	case <-s.Engine.Cancelled:
		<-s.Engine.SendErrs
	case <-time.After(5 * time.Second):
		t.Fatal("the slow tool was not cancelled when the client dropped its call")
	}
}

// TestModernSSEOnlyClientGetsErrorStatus: a client whose Accept lists only
// text/event-stream gets its error as SSE, with the error's status.
func TestModernSSEOnlyClientGetsErrorStatus(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	h := httptransport.ModernHeaders("foo/bar")
	h.Set("Accept", "text/event-stream")
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":7,"method":"foo/bar","params":{`+httptransport.Meta+`}}`)
	httptransport.WantSSEError(t, resp, body, http.StatusNotFound, jsonrpc.CodeMethodNotFound)
}

// TestModernHeaderWhitespaceHTTP2: whitespace around MCP header values is
// ignored (spec 2026-07-28 basic/transports/streamable-http, RFC 9110 §5.5) over HTTP/2 too, where net/http
// hands values over as sent.
func TestModernHeaderWhitespaceHTTP2(t *testing.T) {
	t.Parallel()
	s := httptransport.StartTestServer(t, httptransport.NewTestEngine(), nil, nil, true)
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Method", "tools/call\t")
	h.Set("Mcp-Name", " echo ")
	h.Set("Mcp-Protocol-Version", " "+httptransport.Version20260728)
	resp, body := s.Do("POST", h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"},`+httptransport.Meta+`}}`)
	if resp.ProtoMajor != 2 {
		t.Fatalf("not HTTP/2: %s", resp.Proto)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"text":"ok"`) {
		t.Fatalf("status %d, want 200; body %s", resp.StatusCode, body)
	}
}
