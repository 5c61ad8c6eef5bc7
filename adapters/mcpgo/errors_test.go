package mcpgo_test

import (
	"context"
	"fmt"
	"io"
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
