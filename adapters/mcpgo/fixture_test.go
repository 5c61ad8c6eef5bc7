package mcpgo_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpmount/mcpmount/adapters/mcpgo"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// wait bounds every wait of the tests.
const wait = 10 * time.Second

// fixture is an mcp-go server whose tools report to the test, served
// through the engine on a loopback server.
type fixture struct {
	srv       *server.MCPServer
	engine    *mcpgo.Engine
	url       string
	started   chan string // block's key, when it starts
	cancelled chan string // block's key, when its context ends

	mu    sync.Mutex
	gates map[string]chan struct{}
}

// newFixture serves the fixture's server; wrap (nil for none) builds the
// router around the MCP endpoint.
func newFixture(t *testing.T, wrap func(http.Handler) http.Handler) *fixture {
	return newFixtureWith(t, wrap, nil)
}

// newFixtureWith is newFixture with the transport's options (nil for the
// defaults).
func newFixtureWith(t *testing.T, wrap func(http.Handler) http.Handler, opts *httptransport.Options) *fixture {
	t.Helper()
	f := &fixture{started: make(chan string, 8), cancelled: make(chan string, 8), gates: map[string]chan struct{}{}}
	f.srv = server.NewMCPServer("fixture", "1.0.0",
		server.WithToolCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithLogging(),
	)
	f.addTools()
	f.srv.AddResource(mcp.NewResource("test://watched", "watched"), func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: "test://watched", Text: "watched"}}, nil
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.engine = mcpgo.NewEngine(f.srv, &mcpgo.Options{Logger: quiet})
	o := httptransport.Options{}
	if opts != nil {
		o = *opts
	}
	o.Logger = quiet
	h := httptransport.New(f.engine, &o)
	var handler http.Handler = h
	if wrap != nil {
		handler = wrap(h)
	}
	f.url = serveEngine(t, f.engine, h, handler)
	return f
}

// serveEngine serves handler (h, the transport on engine, or a router
// around it) on loopback, and returns its URL; at the end of the test, h
// shuts down, then the server and the engine close.
func serveEngine(t *testing.T, engine *mcpgo.Engine, h *httptransport.Handler, handler http.Handler) string {
	t.Helper()
	hs := httptest.NewServer(handler)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		hs.Close()
		_ = engine.Close()
	})
	return hs.URL
}

func (f *fixture) addTools() {
	f.srv.AddTool(mcp.NewTool("whoami", mcp.WithString("key")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		user := "-"
		if info := identity.FromContext(ctx); info != nil {
			user = info.Subject
		}
		client := "-"
		if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
			client = s.GetClientInfo().Name
		}
		return mcp.NewToolResultText(fmt.Sprintf("user=%s header=%s client=%s", user, req.Header.Get("X-Probe"), client)), nil
	})
	f.srv.AddTool(mcp.NewTool("progress", mcp.WithNumber("count")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var tok any
		if req.Params.Meta != nil {
			tok = req.Params.Meta.ProgressToken
		}
		n := req.GetInt("count", 0)
		for i := 1; i <= n; i++ {
			if err := f.srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": tok, "progress": i, "total": n}); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText(fmt.Sprint(tok)), nil
	})
	f.srv.AddTool(mcp.NewTool("block", mcp.WithString("key")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		key := req.GetString("key", "")
		f.started <- key
		select {
		case <-ctx.Done():
			f.cancelled <- key
			return nil, ctx.Err()
		case <-f.gate(key):
			return mcp.NewToolResultText("released"), nil
		case <-time.After(wait):
			return nil, errors.New("block: never released")
		}
	})
	f.srv.AddTool(mcp.NewTool("log"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, l := range []mcp.LoggingLevel{mcp.LoggingLevelDebug, mcp.LoggingLevelInfo, mcp.LoggingLevelError} {
			if err := f.srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(l, "fixture", string(l))); err != nil {
				return nil, err
			}
		}
		return mcp.NewToolResultText("logged"), nil
	})
	f.srv.AddTool(mcp.NewTool("refuse"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, fmt.Errorf("refusing: %w", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad input", Data: json.RawMessage(`{"why":"test"}`)})
	})
	f.srv.AddTool(mcp.NewTool("boom"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("boom")
	})
	f.srv.AddTool(mcp.NewTool("fail"), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, errors.New("plain failure")
	})
	f.srv.AddTool(mcp.NewTool("sample", mcp.WithString("prompt")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := f.srv.RequestSampling(ctx, mcp.CreateMessageRequest{CreateMessageParams: mcp.CreateMessageParams{
			Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(req.GetString("prompt", ""))}},
			MaxTokens: 10,
		}})
		if err != nil {
			return nil, err
		}
		text, _ := res.Content.(mcp.TextContent)
		return mcp.NewToolResultText("sampled: " + text.Text), nil
	})
}

// gate returns the channel that open(key) closes.
func (f *fixture) gate(key string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	g, ok := f.gates[key]
	if !ok {
		g = make(chan struct{})
		f.gates[key] = g
	}
	return g
}

// waitFor reads c until key arrives.
func waitFor(t *testing.T, c <-chan string, key string) {
	t.Helper()
	timeout := time.After(wait)
	for {
		select {
		case k := <-c:
			if k == key {
				return
			}
		case <-timeout:
			t.Fatalf("%s: timed out", key)
		}
	}
}

// newEchoTool returns a tool named name that answers its name.
func newEchoTool(name string) (mcp.Tool, server.ToolHandlerFunc) {
	return mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(name), nil
	}
}
