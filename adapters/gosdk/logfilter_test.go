package gosdk_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestFilterConnectionLogs: an *mcp.Server logging at Info writes the SDK's
// three connection lines for every call the engine serves (so a rename in
// the SDK shows here); through FilterConnectionLogs it writes none of them,
// and its other logs, the tools' own and a connection message at another
// level, pass with their attributes and groups.
func TestFilterConnectionLogs(t *testing.T) {
	t.Parallel()
	const calls = 3
	for _, filtered := range []bool{false, true} {
		t.Run(map[bool]string{false: "unfiltered", true: "filtered"}[filtered], func(t *testing.T) {
			var logs testutil.Buffer
			var h slog.Handler = slog.NewTextHandler(&logs, nil)
			if filtered {
				h = gosdk.FilterConnectionLogs(h)
			}
			logger := slog.New(h)
			server := mcp.NewServer(&mcp.Implementation{Name: "logs", Version: "1"}, &mcp.ServerOptions{Logger: logger})
			mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
				logger.WithGroup("tool").With("text", a.Text).Info("tool ran")
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
			})
			engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.DiscardHandler)})
			h2 := httptransport.New(engine, &httptransport.Options{Logger: slog.New(slog.DiscardHandler)})
			srv := httptest.NewServer(h2)
			stopAtCleanup(t, h2, srv, engine)
			cs := connect(t, srv.URL, httptransport.Version20260728, nil)
			for range calls {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "x"}})
				if err != nil || textOf(t, res) != "x" {
					t.Fatalf("call: %v", err)
				}
			}
			logger.Warn("server connecting")
			out := logs.String()
			for _, msg := range []string{"server connecting", "server session connected", "server session disconnected"} {
				n := strings.Count(out, "level=INFO msg=\""+msg+"\"")
				if filtered && n != 0 || !filtered && n < calls {
					t.Errorf("%q at Info logged %d times for %d calls", msg, n, calls)
				}
			}
			if n := strings.Count(out, `level=INFO msg="tool ran" tool.text=x`); n != calls {
				t.Errorf("the tool's own line logged %d times, want %d:\n%s", n, calls, out)
			}
			if !strings.Contains(out, `level=WARN msg="server connecting"`) {
				t.Errorf("a Warn line with a connection message was dropped:\n%s", out)
			}
		})
	}
}
