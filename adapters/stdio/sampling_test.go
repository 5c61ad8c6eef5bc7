package stdio_test

import (
	"context"
	"fmt"
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
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, &stdio.Options{ChildPerSession: true, StopTimeout: 500 * time.Millisecond})
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
	})
}

// TestSamplingLegacySSE: the same for a 2024-11-05 HTTP+SSE session,
// which the transport opens (GET) before its initialize.
func TestSamplingLegacySSE(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, &stdio.Options{ChildPerSession: true, StopTimeout: 500 * time.Millisecond})
		client := mcp.NewClient(&mcp.Implementation{Name: "sse-client", Version: "1.0.0"}, &mcp.ClientOptions{CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "sampled over SSE"}}, nil
		}})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: f.url}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "hi"}})
		if err != nil {
			t.Fatalf("trigger-sampling-request: %v", err)
		}
		if got := text(res); !strings.Contains(got, "sampled over SSE") {
			t.Errorf("the tool got %q", got)
		}
	})
}

// TestSharedChildHasNoSampling: the shared child is told the client has no
// capabilities, so the everything server offers no sampling tool there
// (the documented rule), even to a client that declares sampling.
func TestSharedChildHasNoSampling(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, nil)
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
	})
}

// TestRootsChildPerSession: a session's child asks for roots once
// initialized (its request goes to the session's standalone stream, or to
// the one call in flight then) and, if it has none yet, in its
// get-roots-list tool (on the call's stream): the client's answer reaches
// the child, whose tool then shows it. (TestSamplingTwoCallsInFlight
// pins the standalone stream's way.)
func TestRootsChildPerSession(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, &stdio.Options{ChildPerSession: true, StopTimeout: 500 * time.Millisecond})
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
	})
}

// TestSamplingTwoCallsInFlight: with two calls of one session running,
// the child's sampling requests cannot be tied to either, and go to the
// session's standalone stream; the client's answers come back through it
// (Reply) and both calls complete.
func TestSamplingTwoCallsInFlight(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, &stdio.Options{ChildPerSession: true, StopTimeout: 500 * time.Millisecond})
		started := make(chan struct{}, 8)
		release := make(chan struct{})
		cs := connect(t, f.url, httptransport.Version20251125, &mcp.ClientOptions{CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			started <- struct{}{}
			select { // hold both requests until both calls are in flight
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "answer"}}, nil
		}})
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "trigger-sampling-request", Arguments: map[string]any{"prompt": "hi"}})
				if err == nil && !strings.Contains(text(res), "answer") {
					err = fmt.Errorf("result %q", text(res))
				}
				errs <- err
			}()
		}
		<-started
		<-started
		close(release)
		for range 2 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
	})
}

// TestMaxSessionChildren: past MaxSessionChildren a session's initialize
// is refused with an error that says why; once a session ends, its place
// is free.
func TestMaxSessionChildren(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, &stdio.Options{ChildPerSession: true, MaxSessionChildren: 1, StopTimeout: 300 * time.Millisecond})
		first := connect(t, f.url, httptransport.Version20251125, nil)
		client := mcp.NewClient(&mcp.Implementation{Name: "second", Version: "1.0.0"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
		if err == nil || !strings.Contains(err.Error(), "too many sessions") {
			t.Fatalf("a second session past the bound: %v", err)
		}
		first.Close() // DELETE: the session ends, and its child
		for {
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
			if err == nil {
				cs.Close()
				return
			}
			select { // the first child may still be stopping
			case <-ctx.Done():
				t.Fatalf("no session once the first ended: %v", err)
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}
