package httptransport_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestDeepJSONRefused: arguments nested past jsonrpc.MaxDepth get 400 and
// a parse error naming the limit, in every era, before any engine sees
// them; JSON nested up to the limit reaches the tool.
func TestDeepJSONRefused(t *testing.T) {
	t.Parallel()
	s := httptransport.NewTestServer(t, nil)
	args := func(levels int) string {
		return strings.Repeat(`{"text":`, levels) + `"x"` + strings.Repeat(`}`, levels)
	}
	sid := s.Initialize(httptransport.Version20251125)
	for _, era := range []struct {
		name   string
		header http.Header
		meta   string
	}{
		{"2026-07-28", httptransport.ModernHeaders("tools/call"), `,` + httptransport.Meta},
		{"2025-11-25 session", httptransport.SessionHeaders(sid, httptransport.Version20251125), ``},
	} {
		if era.name == "2026-07-28" {
			era.header.Set("Mcp-Name", "echo")
		}
		deep := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":` + args(1000) + era.meta + `}}`
		resp, body := s.Do("POST", era.header, deep)
		if _, code, _ := httptransport.RPCError(t, body); resp.StatusCode != http.StatusBadRequest || code != jsonrpc.CodeParseError || !strings.Contains(body, "256 levels") {
			t.Errorf("%s: arguments 1000 levels deep: %d %s; want 400 with a parse error naming the limit", era.name, resp.StatusCode, body)
		}
		// The message, params and arguments' own levels: 256 in all.
		ok := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo","arguments":{"text":"y","more":` + args(253) + `}` + era.meta + `}}`
		if resp, body := s.Do("POST", era.header, ok); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"text":"y"`) {
			t.Errorf("%s: arguments at the limit: %d %s; want the tool's answer", era.name, resp.StatusCode, body)
		}
	}
}
