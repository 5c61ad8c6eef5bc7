package mcpgo_test

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/mcpgo"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestDroppedNotificationsLogBounded: issue 31 item 3. A tool sending 50
// notifications whose params cannot be encoded (a NaN) has each dropped,
// with at most 10 warnings and the error quoted; it wrote 50 before.
func TestDroppedNotificationsLogBounded(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 1 << 20}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	srv := server.NewMCPServer("logs", "1.0.0", server.WithToolCapabilities(true))
	srv.AddTool(mcp.NewTool("nan"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for range 50 {
			_ = srv.SendNotificationToClient(ctx, "notifications/message", map[string]any{"level": "info", "data": math.NaN()})
		}
		return mcp.NewToolResultText("sent"), nil
	})
	engine := mcpgo.NewEngine(srv, &mcpgo.Options{Logger: logger})
	h := httptransport.New(engine, &httptransport.Options{Logger: logger})
	cs := connect(t, serveEngine(t, engine, h, h), httptransport.Version20251125, nil, nil)
	if got := call(t, cs, &sdk.CallToolParams{Name: "nan", Arguments: map[string]any{}}); got != "sent" {
		t.Fatalf("the call: %q", got)
	}
	dropped := 0
	for _, rec := range logs.Records() {
		if rec["msg"] != "mcpgo: dropping a notification" {
			continue
		}
		dropped++
		if e := fmt.Sprint(rec["error"]); !strings.HasPrefix(e, `"mcpgo: encoding notification \"notifications/message\"`) {
			t.Errorf("error %s, want it quoted", e)
		}
	}
	if dropped == 0 || dropped > logval.Burst {
		t.Errorf("%d warnings for 50 notifications dropped, want 1 to %d", dropped, logval.Burst)
	}
}
