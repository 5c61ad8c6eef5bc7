package mcpgo_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestNoLossNoCrossTalk: 64 concurrent calls each send 50 progress
// notifications; every call's stream carries exactly its own 50, in
// order, then its own answer. mcp-go's own handler drops notifications
// when a session's channel is full, and in stateful sessions lets one
// call's progress land on another's stream. Run at 2026-07-28 (each call
// on its own) and on one 2025-11-25 session (all 64 calls in it).
func TestNoLossNoCrossTalk(t *testing.T) {
	const calls, each = 64, 50
	f := newFixture(t, nil)
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(era, func(t *testing.T) {
			var session map[string]string
			if era == "2025-11-25" {
				session = rawSession(t, f.url)
			}
			var wg sync.WaitGroup
			errs := make(chan error, calls)
			for c := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					token := fmt.Sprintf("tok-%d", c)
					id := 100 + c
					var h map[string]string
					var body string
					if session != nil {
						h = session
						body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"count":%d},"_meta":{"progressToken":%q}}}`, id, each, token)
					} else {
						h = modernHeader("progress")
						body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"count":%d},"_meta":{"progressToken":%q,%s}}}`, id, each, token, modernMeta)
					}
					resp := rawPost(context.Background(), t, f.url, h, body)
					defer resp.Body.Close()
					if resp.StatusCode != 200 {
						errs <- fmt.Errorf("%s: %s", token, resp.Status)
						return
					}
					if err := progressStream(resp.Body, token, each, jsonrpc.Int64ID(int64(id))); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}
