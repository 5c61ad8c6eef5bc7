package stdio_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestCancellationReachesChild cancels a long-running operation once its
// first progress arrives, at 2026-07-28 (the client drops the request) and
// at 2025-11-25 (notifications/cancelled). The everything server's SDK
// sends no answer for a request it was told is cancelled: the test waits
// for the operation's last progress notification (which the child still
// sends, to no call), then for an echo sent after it, and checks that no
// answer for the cancelled request came in between. Without the
// notifications/cancelled the engine sends, that answer would come. The
// Go server (go-sdk answers a cancelled request all the same) says it was
// cancelled in a last progress notification, which it would not send
// without the engine's notifications/cancelled.
func TestCancellationReachesChild(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		for _, version := range []string{httptransport.Version20260728, httptransport.Version20251125} {
			t.Run(version, func(t *testing.T) {
				f := newFixture(t, srv, nil)
				first := make(chan struct{}, 8)
				cs := connect(t, f.url, version, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
					first <- struct{}{}
				}})
				ctx, cancel := context.WithCancel(context.Background())
				errc := make(chan error, 1)
				go func() {
					params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.9, "steps": 3}}
					params.SetProgressToken("slow")
					_, err := cs.CallTool(ctx, params)
					errc <- err
				}()
				<-first
				cancel()
				if err := <-errc; !errors.Is(err, context.Canceled) {
					t.Fatalf("cancelled call returned %v, want context.Canceled", err)
				}
				f.logs.wait(t, "stdio: progress from the child for no call waiting", func(a map[string]string) bool {
					return srv.cancelSeen(a["params"])
				})
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "after"}})
				if err != nil || !strings.Contains(text(res), "after") {
					t.Fatalf("echo after the cancellation: %v %v", res, err)
				}
				if late := f.logs.find("stdio: an answer from the child for no request waiting", nil); len(late) > 0 && !srv.answersCancelled {
					t.Errorf("the child answered the cancelled request (%v): it was not told of the cancellation", late)
				}
			})
		}
	})
}
