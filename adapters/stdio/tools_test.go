package stdio_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestToolsEveryEra lists and calls the server's tools through the engine
// with go-sdk's client at every era the transport serves.
func TestToolsEveryEra(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, nil)
		for _, version := range eras {
			t.Run(version, func(t *testing.T) {
				cs := connect(t, f.url, version, nil)
				if got := cs.InitializeResult().ProtocolVersion; got != version {
					t.Errorf("negotiated %q, want %q", got, version)
				}
				if got := cs.InitializeResult().ServerInfo.Name; got != srv.info {
					t.Errorf("server name %q, want the child's, %q", got, srv.info)
				}
				ctx := context.Background()
				list, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				var names []string
				for _, tool := range list.Tools {
					names = append(names, tool.Name)
				}
				for _, want := range []string{"echo", "get-sum", "trigger-long-running-operation"} {
					if !slices.Contains(names, want) {
						t.Errorf("tools/list lacks %q: %v", want, names)
					}
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello " + version}})
				if err != nil {
					t.Fatalf("tools/call echo: %v", err)
				}
				if got := text(res); !strings.Contains(got, "hello "+version) {
					t.Errorf("echo answered %q", got)
				}
				res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 40}})
				if err != nil {
					t.Fatalf("tools/call get-sum: %v", err)
				}
				if got := text(res); !strings.Contains(got, "42") {
					t.Errorf("get-sum answered %q", got)
				}
			})
		}
	})
}

// TestStatelessTransport: with the transport's Stateless option, 2025-era
// clients get no session, and every call, initialize included, is served
// by the shared child, progress too.
func TestStatelessTransport(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixtureWith(t, srv, nil, &httptransport.Options{Stateless: true})
		arrived := make(chan struct{}, 16)
		cs := connect(t, f.url, httptransport.Version20251125, &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select { // more than expected: the checks below say so
			case arrived <- struct{}{}:
			default:
			}
		}})
		if cs.ID() != "" {
			t.Errorf("session id %q under Stateless", cs.ID())
		}
		params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.2, "steps": 2}}
		params.SetProgressToken("p")
		res, err := cs.CallTool(context.Background(), params)
		if err != nil || !strings.Contains(text(res), "completed") {
			t.Fatalf("long-running operation: %v %v", res, err)
		}
		// go-sdk's client runs notification handlers on goroutines of their own.
		timeout := time.After(10 * time.Second)
		for n := 0; n < 2; n++ {
			select {
			case <-arrived:
			case <-timeout:
				t.Fatalf("%d progress notifications, want 2", n)
			}
		}
		if n := len(arrived); n != 0 {
			t.Errorf("%d progress notifications, want 2", 2+n)
		}
	})
}
