package gosdk_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestSessionStateFollowsSetLevel: a 2025-era session's log level, kept
// in the session's stored state, takes effect on the next call and on
// every change after, whatever the engine caches of the state between
// calls.
func TestSessionStateFollowsSetLevel(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "levels", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "log"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		for _, level := range []mcp.LoggingLevel{"debug", "info", "error"} {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Data: a.Text + " " + string(level)}); err != nil {
				return nil, nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Text}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, nil)
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)

	var mu sync.Mutex
	var got []string
	arrived := make(chan struct{}, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "levels-client", Version: "1.0.0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			got = append(got, req.Params.Data.(string))
			mu.Unlock()
			arrived <- struct{}{}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// call runs the tool, then waits for its last log message (logged at
	// level error, which every level set here lets through), since the
	// client dispatches notifications on its own, and returns the call's
	// messages, sorted.
	call := func(text string) []string {
		t.Helper()
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"text": text}}); err != nil {
			t.Fatalf("log %s: %v", text, err)
		}
		timeout := time.After(5 * time.Second)
		for {
			mu.Lock()
			l := slices.DeleteFunc(slices.Clone(got), func(m string) bool { return !strings.HasPrefix(m, text+" ") })
			mu.Unlock()
			if slices.Contains(l, text+" error") {
				slices.Sort(l)
				return l
			}
			select {
			case <-arrived:
			case <-timeout:
				t.Fatalf("no error-level message for %s; got %v", text, l)
			}
		}
	}
	// Before any logging/setLevel nothing is logged.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"text": "unset"}}); err != nil {
		t.Fatal(err)
	}
	for i, step := range []struct {
		level mcp.LoggingLevel
		want  []string
	}{
		{"info", []string{"%s error", "%s info"}},
		{"error", []string{"%s error"}},
		{"debug", []string{"%s debug", "%s error", "%s info"}},
	} {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: step.level}); err != nil {
			t.Fatal(err)
		}
		for j := range 2 { // the second call is served from the cached state
			text := fmt.Sprintf("%d.%d", i, j)
			want := make([]string, len(step.want))
			for k, w := range step.want {
				want[k] = fmt.Sprintf(w, text)
			}
			if l := call(text); !slices.Equal(l, want) {
				t.Fatalf("at level %s: logged %v, want %v", step.level, l, want)
			}
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, m := range got {
		if strings.HasPrefix(m, "unset") {
			t.Fatalf("logged before any level was set: %s", m)
		}
	}
}

// TestOpenSessionAfterClose: once the engine is closed, opening a session
// fails (the transport answers initialize with an error) and starts
// nothing.
func TestOpenSessionAfterClose(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "closed", Version: "1"}, nil)
	engine := gosdk.NewEngine(server, nil)
	if err := engine.Close(); err != nil {
		t.Fatal(err)
	}
	if err := engine.OpenSession(context.Background(), &httptransport.Session{ID: "s", Version: httptransport.Version20251125}, nopSender{}); err == nil {
		t.Error("a session opened on a closed engine")
	}
	for range server.Sessions() {
		t.Error("an SDK session is left open")
	}
}

type nopSender struct{}

func (nopSender) Send(context.Context, *jsonrpc.Message) error { return nil }
