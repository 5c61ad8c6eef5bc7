package stdio_test

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/stdio"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/stdiotest"
)

// docURI is a static resource of both servers.
const docURI = stdiotest.DocURI

// TestResourcesAndPrompts lists and reads the server's resources and
// prompts at every era.
func TestResourcesAndPrompts(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		f := newFixture(t, srv, nil)
		for _, version := range eras {
			t.Run(version, func(t *testing.T) {
				cs := connect(t, f.url, version, nil)
				ctx := context.Background()
				list, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatalf("resources/list: %v", err)
				}
				if !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == docURI }) {
					t.Errorf("resources/list lacks %s", docURI)
				}
				read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: docURI})
				if err != nil {
					t.Fatalf("resources/read: %v", err)
				}
				if len(read.Contents) != 1 || !strings.Contains(read.Contents[0].Text, "#") {
					t.Errorf("resources/read gave %+v", read.Contents)
				}
				templates, err := cs.ListResourceTemplates(ctx, nil)
				if err != nil || len(templates.ResourceTemplates) == 0 {
					t.Errorf("resources/templates/list: %v %v", templates, err)
				}
				prompts, err := cs.ListPrompts(ctx, nil)
				if err != nil {
					t.Fatalf("prompts/list: %v", err)
				}
				if !slices.ContainsFunc(prompts.Prompts, func(p *mcp.Prompt) bool { return p.Name == "args-prompt" }) {
					t.Errorf("prompts/list lacks args-prompt")
				}
				got, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "args-prompt", Arguments: map[string]string{"city": "Lyon"}})
				if err != nil {
					t.Fatalf("prompts/get: %v", err)
				}
				if len(got.Messages) == 0 || !strings.Contains(got.Messages[0].Content.(*mcp.TextContent).Text, "Lyon") {
					t.Errorf("prompts/get gave %+v", got.Messages)
				}
			})
		}
	})
}

// TestChangesReachEveryEra subscribes a 2025-11-25 session and a
// 2026-07-28 client (whose go-sdk client opens subscriptions/listen) to a
// resource: a resource added by a third client's tool call reaches both
// as a list change, and the child's update of the subscribed resource
// reaches both.
func TestChangesReachEveryEra(t *testing.T) {
	eachServer(t, func(t *testing.T, srv server) {
		// The child keeps sending updates on a timer, and so does not exit
		// when its stdin closes: a short StopTimeout has it SIGTERMed sooner.
		f := newFixture(t, srv, &stdio.Options{StopTimeout: 200 * time.Millisecond})
		type watcher struct {
			listChanged chan struct{}
			updated     chan string
		}
		watch := func(version string) (*watcher, *mcp.ClientSession) {
			w := &watcher{listChanged: make(chan struct{}, 16), updated: make(chan string, 16)}
			cs := connect(t, f.url, version, &mcp.ClientOptions{
				ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { w.listChanged <- struct{}{} },
				ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
					w.updated <- req.Params.URI
				},
			})
			if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: docURI}); err != nil {
				t.Fatalf("%s subscribe: %v", version, err)
			}
			return w, cs
		}
		legacy, _ := watch(httptransport.Version20251125)
		modern, _ := watch(httptransport.Version20260728)
		actor := connect(t, f.url, httptransport.Version20251125, nil)
		ctx := context.Background()

		data := "data:text/plain;base64," + base64.StdEncoding.EncodeToString([]byte("hello"))
		if _, err := actor.CallTool(ctx, &mcp.CallToolParams{Name: "gzip-file-as-resource", Arguments: map[string]any{"name": "hello.gz", "data": data}}); err != nil {
			t.Fatalf("gzip-file-as-resource: %v", err)
		}
		for name, w := range map[string]*watcher{"2025-11-25": legacy, "2026-07-28": modern} {
			select {
			case <-w.listChanged:
			case <-time.After(20 * time.Second):
				t.Errorf("%s: no resources/list_changed", name)
			}
		}
		if _, err := actor.CallTool(ctx, &mcp.CallToolParams{Name: "toggle-subscriber-updates"}); err != nil {
			t.Fatalf("toggle-subscriber-updates: %v", err)
		}
		for name, w := range map[string]*watcher{"2025-11-25": legacy, "2026-07-28": modern} {
			select {
			case uri := <-w.updated:
				if uri != docURI {
					t.Errorf("%s: update for %q, want %q", name, uri, docURI)
				}
			case <-time.After(20 * time.Second):
				t.Errorf("%s: no resources/updated", name)
			}
		}
	})
}
