package mcpgo_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestHandlerErrors: a tool error wrapping a *jsonrpc.Error reaches the
// client with its code, message and data (mcp-go alone answers -32603);
// any other error stays -32603.
func TestHandlerErrors(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		tool, want string
	}{
		{"refuse", `-32602 "bad input" {"why":"test"}`},
		{"fail", `-32603 "plain failure" `},
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{},"_meta":{%s}}}`, tc.tool, modernMeta)
		resp := rawPost(context.Background(), t, f.url, modernHeader(tc.tool), body)
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m, err := jsonrpc.Decode(data)
		if err != nil || m.Error == nil {
			t.Fatalf("%s: %s: %s", tc.tool, resp.Status, data)
		}
		if got := fmt.Sprintf("%d %q %s", m.Error.Code, m.Error.Message, m.Error.Data); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.tool, got, tc.want)
		}
	}
}

// TestResourceNotFoundNamesURI: reading an unknown resource gets an error
// whose data names the URI (mcp-go's own error has no data), at
// 2026-07-28 (-32602) and in a 2025-era session (-32002).
func TestResourceNotFoundNamesURI(t *testing.T) {
	f := newFixture(t, nil)
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": "test://nope"}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://nope","_meta":{%s}}}`, modernMeta)
	for _, tc := range []struct {
		era    string
		header map[string]string
		body   string
		want   string
	}{
		{"2026-07-28", h, body, `-32602 {"uri":"test://nope"}`},
		{"2025-11-25", rawSession(t, f.url), `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"test://nope"}}`, `-32002 {"uri":"test://nope"}`},
	} {
		resp := rawPost(context.Background(), t, f.url, tc.header, tc.body)
		got := streamError(t, resp)
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.era, got, tc.want)
		}
	}
}

// streamError reads a call's answer (JSON or SSE) and returns its error's
// code and data.
func streamError(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	s := string(data)
	if i := strings.Index(s, "data: {"); i >= 0 { // SSE: the event's data line
		s = s[i+len("data: "):]
		s = s[:strings.IndexByte(s, '\n')]
	}
	m, err := jsonrpc.Decode([]byte(s))
	if err != nil || m.Error == nil {
		return fmt.Sprintf("no error: %s %s", resp.Status, data)
	}
	return fmt.Sprintf("%d %s", m.Error.Code, m.Error.Data)
}

// TestHandlerPanic: a tool that panics gets -32603 in every era, and the
// server goes on.
func TestHandlerPanic(t *testing.T) {
	f := newFixture(t, nil)
	session := rawSession(t, f.url)
	for _, tc := range []struct {
		era    string
		header map[string]string
		meta   string
	}{
		{"2026-07-28", modernHeader("boom"), `,"_meta":{` + modernMeta + `}`},
		{"2025-11-25", session, ""},
	} {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"boom","arguments":{}%s}}`, tc.meta)
		if got := streamError(t, rawPost(context.Background(), t, f.url, tc.header, body)); !strings.HasPrefix(got, "-32603") {
			t.Errorf("%s: %s, want -32603", tc.era, got)
		}
	}
	body := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"whoami","arguments":{}}}`
	if got := streamSummary(t, rawPost(context.Background(), t, f.url, session, body)); len(got) != 1 || !strings.HasPrefix(got[0], `"user=-`) {
		t.Errorf("after the panics: %v", got)
	}
}
