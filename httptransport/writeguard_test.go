package httptransport_test

import (
	"context"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestShutdownEndsBlockedWrite: the same for a 2026-07-28 call that
// Shutdown abandons at its deadline.
func TestShutdownEndsBlockedWrite(t *testing.T) {
	s := httptransport.NewTestServer(t, &httptransport.Options{WriteTimeout: 10 * time.Minute})
	h := httptransport.ModernHeaders("tools/call")
	h.Set("Mcp-Name", "progress")
	httptransport.StalledPost(t, s, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{"count":100000000},"_meta":{"progressToken":"p",`+httptransport.Meta[len(`"_meta":{`):]+`}}`)
	for deadline := time.Now().Add(20 * time.Second); !httptransport.ToolBlockedInWrite(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call never blocked on its client")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_ = s.Handler.Shutdown(ctx)
	for deadline := time.Now().Add(20 * time.Second); httptransport.GoroutinesIn("(*TestEngine).tool") > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the abandoned call is still blocked in its write 20 s later")
		}
	}
}
