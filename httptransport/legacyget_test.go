package httptransport_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestLegacyGetWhateverVersion: a GET without Mcp-Session-Id that accepts
// text/event-stream opens a 2024-11-05 event stream whatever
// MCP-Protocol-Version it names, as the AI SDK's SSE transport sends
// 2025-11-25 on its GET: a 2025-era standalone GET carries a session id,
// and 2026-07-28 has no GET. The session it opens works as any 2024-11-05
// session: a POST to its endpoint is answered on the stream.
func TestLegacyGetWhateverVersion(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	post := http.Header{"Content-Type": {"application/json"}}
	for _, version := range []string{httptransport.Version20251125, httptransport.Version20250618, httptransport.Version20260728, "2099-01-01"} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		r, endpoint := httptransport.OpenLegacy(t, ctx, s.URL, http.Header{"Mcp-Protocol-Version": {version}})
		resp, body := s.DoURL("POST", s.HTTPServer.URL+endpoint, post, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("%s: POST to the endpoint: %d %s", version, resp.StatusCode, body)
		}
		if e := r.Next(); e.Name != "message" || !strings.Contains(string(e.Data), `"tools"`) {
			t.Errorf("%s: the answer on the stream: %q %s", version, e.Name, e.Data)
		}
		cancel()
	}
}

// TestStatelessGetNamesTransport: with Options.Stateless a 2025-era client
// has no session id, so a GET naming a 2025-era version without one is its
// standalone stream, not a 2024-11-05 handshake: it gets 405, and the
// error says which transport to use.
func TestStatelessGetNamesTransport(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, &httptransport.Options{Stateless: true})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp := s.Open(ctx, "GET", httptransport.GetHeaders("", httptransport.Version20251125), "")
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body) // a stream wrongly opened ends with ctx
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("stateless GET: %d Allow %q %s", resp.StatusCode, resp.Header.Get("Allow"), body)
	}
	if !strings.Contains(string(body), "POST only") || !strings.Contains(string(body), "2024-11-05") {
		t.Errorf("stateless GET: %s, want the error to name the transports to use", body)
	}
}

// TestBareGet: a GET that asks for no event stream by name (no Accept,
// curl's */*, a browser's text/html with */*) is not an MCP client's: it
// gets 400 at once with a message saying what the URL takes, where it
// opened a 2024-11-05 stream that never ended. A GET refusing
// text/event-stream still gets 406.
func TestBareGet(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	for _, accept := range []string{"", "*/*", "text/html,application/xhtml+xml,*/*;q=0.8", "text/*"} {
		h := http.Header{}
		if accept != "" {
			h.Set("Accept", accept)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		resp := s.Open(ctx, "GET", h, "")
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		if err != nil || resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "Accept: text/event-stream") {
			t.Errorf("GET with Accept %q: %d %s (%v), want 400 saying what the URL takes", accept, resp.StatusCode, body, err)
		}
	}
	resp, _ := s.Do("GET", http.Header{"Accept": {"application/json"}}, "")
	if resp.StatusCode != http.StatusNotAcceptable {
		t.Errorf("GET with Accept application/json: %d, want 406", resp.StatusCode)
	}
}
