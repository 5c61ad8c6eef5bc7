package main

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/examples/internal/demo"
	"github.com/mcpmount/mcpmount/examples/internal/demotest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestLegacyPinned: a 2024-11-05 client, whose session lives on the
// instance holding its event stream, is served through the round-robin
// proxy, every call by the first instance.
func TestLegacyPinned(t *testing.T) {
	t.Parallel()
	base, _ := demotest.Start(t, run)
	cs := demotest.Connect(t, base+"/mcp", "2024-11-05", "", nil)
	for range 4 {
		if echo := demotest.Call(t, cs, &mcp.CallToolParams{Name: "echo", Arguments: demo.EchoArgs{Text: "hi"}}); !strings.Contains(echo, "served by instance 1") {
			t.Fatalf("echo %q, want instance 1", echo)
		}
	}
}

// TestRoundRobin drives the proxy with a 2026-07-28 client and a 2025-11-25
// client: consecutive calls of one client are answered by both instances.
func TestRoundRobin(t *testing.T) {
	t.Parallel()
	base, _ := demotest.Start(t, run)
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(era, func(t *testing.T) {
			cs := demotest.Connect(t, base+"/mcp", era, "", nil)
			seen := map[string]bool{}
			for range 4 {
				echo := demotest.Call(t, cs, &mcp.CallToolParams{Name: "echo", Arguments: demo.EchoArgs{Text: "hi"}})
				for _, name := range []string{"instance 1", "instance 2"} {
					if strings.Contains(echo, "served by "+name) {
						seen[name] = true
					}
				}
			}
			if len(seen) != 2 {
				t.Errorf("answered by %v, want both instances", seen)
			}
		})
	}
}
