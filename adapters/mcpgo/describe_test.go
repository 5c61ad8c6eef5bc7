package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestDescribeFollowsTools: a tool whose argument is mirrored into a
// header (x-mcp-header), added after the engine described the server, is
// checked at once: a 2026-07-28 call whose Mcp-Param-Region disagrees with
// its body is refused with 400, a call where they agree is served.
func TestDescribeFollowsTools(t *testing.T) {
	f := newFixture(t, nil)
	post := func(tool, region, header string) *http.Response {
		h := modernHeader(tool)
		h["Mcp-Param-Region"] = header
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{"region":%q},"_meta":{%s}}}`, tool, region, modernMeta)
		resp := rawPost(context.Background(), t, f.url, h, body)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	if resp := post("whoami", "eu", "us"); resp.StatusCode != http.StatusOK { // describes the server
		t.Fatalf("whoami: %s", resp.Status)
	}
	f.srv.AddTool(mcp.NewToolWithRawSchema("regional", "", json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("region", "")), nil
		})
	if resp := post("regional", "eu", "us"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("header and body disagreeing: %s, want 400", resp.Status)
	}
	if resp := post("regional", "eu", "eu"); resp.StatusCode != http.StatusOK {
		t.Errorf("header and body agreeing: %s, want 200", resp.Status)
	}
}

// TestNotifyAndReply: a 2025-era client's notifications/roots/list_changed
// reaches the server's notification handler with the session's registered
// ClientSession, whose roots/list (a request outside any call) goes to the
// client on its GET stream and whose answer comes back (Engine.Reply).
func TestNotifyAndReply(t *testing.T) {
	f := newFixture(t, nil)
	roots := make(chan string, 64) // one line per answer
	report := func(line string) {
		select { // the test has what it needs; later answers may go
		case roots <- line:
		default:
		}
	}
	f.srv.AddNotificationHandler("notifications/roots/list_changed", func(ctx context.Context, _ mcp.JSONRPCNotification) {
		// The handler runs on the client's POST: ask on a goroutine of
		// its own, past the POST.
		ctx = context.WithoutCancel(ctx)
		go func() {
			ctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			res, err := f.srv.RequestRoots(ctx, mcp.ListRootsRequest{})
			if err != nil {
				report("error: " + err.Error())
				return
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			report(strings.Join(uris, " "))
		}()
	})
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1.0.0"}, nil)
	client.AddRoots(&sdk.Root{URI: "file:///first"})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: f.url}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// The client's GET stream opens asynchronously; adding a root sends
	// notifications/roots/list_changed.
	deadline := time.After(wait)
	for i := 0; ; i++ {
		client.AddRoots(&sdk.Root{URI: fmt.Sprintf("file:///added-%d", i)})
		select {
		case line := <-roots:
			if !strings.HasPrefix(line, "file:///") {
				t.Fatalf("roots/list: %s", line)
			}
			if slices.Contains(strings.Fields(line), "file:///first") {
				return
			}
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatal("roots/list never answered")
		}
	}
}
