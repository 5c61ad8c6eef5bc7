package stdio_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
)

// TestSamplingChildPerSession: with ChildPerSession, a 2025-11-25 session
// that declares sampling gets a child of its own that knows it, and the
// child's sampling/createMessage during a tool call reaches that
// session's client, whose answer reaches the tool. Two sessions at once
// each get their own client's answer.
func TestSamplingChildPerSession(t *testing.T) {
	f := newFixture(t, &stdio.Options{ChildPerSession: true, StopTimeout: 500 * time.Millisecond})
	sampler := func(reply string) *mcp.ClientOptions {
		return &mcp.ClientOptions{CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "test-model", Role: "assistant", Content: &mcp.TextContent{Text: reply}}, nil
		}}
	}
	for _, who := range []string{"alice", "bob"} {
		t.Run(who, func(t *testing.T) {
			t.Parallel()
			cs := connect(t, f.url, httptransport.Version20251125, sampler("sampled for "+who))
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "hi"}})
			if err != nil {
				t.Fatalf("trigger-sampling-request: %v", err)
			}
			if got := text(res); !strings.Contains(got, "sampled for "+who) {
				t.Errorf("the tool got %q, want its own client's answer", got)
			}
		})
	}
}

// TestSharedChildHasNoSampling: the shared child is told the client has no
// capabilities, so the everything server offers no sampling tool there
// (the documented rule), even to a client that declares sampling.
func TestSharedChildHasNoSampling(t *testing.T) {
	f := newFixture(t, nil)
	cs := connect(t, f.url, httptransport.Version20251125, &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		t.Error("a shared child's request reached a client")
		return nil, nil
	}})
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(list.Tools, func(tool *mcp.Tool) bool { return tool.Name == "trigger-sampling-request" }) {
		t.Error("the shared child offers trigger-sampling-request")
	}
}

// TestRootsChildPerSession: a session's child asks for roots right after
// initialization, before any call: the request goes to the session's
// standalone stream and the client's answer back to the child, which its
// get-roots-list tool then shows.
func TestRootsChildPerSession(t *testing.T) {
	f := newFixture(t, &stdio.Options{ChildPerSession: true, StopTimeout: 500 * time.Millisecond})
	client := mcp.NewClient(&mcp.Implementation{Name: "roots-client", Version: "1.0.0"}, nil)
	client.AddRoots(&mcp.Root{URI: "file:///work/project", Name: "project"})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-roots-list"})
		if err != nil {
			t.Fatalf("get-roots-list: %v", err)
		}
		if got := text(res); strings.Contains(got, "file:///work/project") {
			return
		}
		// The child asks once initialized; its answer may not be in yet.
		select {
		case <-ctx.Done():
			t.Fatal("the child never got the client's roots")
		case <-time.After(50 * time.Millisecond):
		}
	}
}
