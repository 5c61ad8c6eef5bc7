package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpmount/mcpmount/adapters/mcpgo"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// The fixtures are the tools, resources, template, prompts and completions
// that the server scenarios of @modelcontextprotocol/conformance call by
// name, with the texts, MIME types and arguments they check, plus the
// tools of the interop tests (progress, slow, slow_status). Tools that
// need the client (sampling, elicitation, roots) answer with an
// input_required result (multi round-trip, SEP-2322): mcp-go returns it to
// 2026-07-28 clients, and fulfils it itself through the session for
// 2025-era ones.

const (
	staticTextURI   = "test://static-text"
	staticBinaryURI = "test://static-binary"
	watchedURI      = "test://watched-resource"
	templateURI     = "test://template/{id}/data"

	dynamicTool   = "test_dynamic_tool"
	dynamicPrompt = "test_dynamic_prompt"

	slowMax = 30 * time.Second
)

// fixtures holds the server and the state its handlers share.
type fixtures struct {
	srv    *server.MCPServer
	engine *mcpgo.Engine
	png    string // base64
	wav    string // base64
	seal   *sealer

	mu        sync.Mutex
	toolRev   int
	promptRev int
	slow      map[string]string // slow call id -> running, cancelled or finished
}

func newFixtures() *fixtures {
	f := &fixtures{png: pixelPNG(), wav: toneWAV(), seal: newSealer(), slow: make(map[string]string)}
	f.srv = server.NewMCPServer("mcpmount-mcpgo-conformance", "0.1.0",
		server.WithTitle("mcpmount conformance fixtures on mcp-go"),
		server.WithInstructions("Fixture server for the MCP conformance suite and the mcpmount interop tests, on mcp-go."),
		server.WithToolCapabilities(true),
		server.WithPromptCapabilities(true),
		server.WithResourceCapabilities(true, true),
		server.WithLogging(),
		server.WithCompletions(),
		server.WithPromptCompletionProvider(completer{}),
		server.WithResourceCompletionProvider(completer{}),
		server.WithCacheHints(0, mcp.CacheScopePrivate),
	)
	f.addTools()
	f.addInputTools()
	f.addResources()
	f.addPrompts()
	return f
}

// noArgs is the input schema of a tool without arguments.
var noArgs = json.RawMessage(`{"type":"object","properties":{}}`)

// tool makes a tool with a raw input schema.
func tool(name, description string, schema json.RawMessage) mcp.Tool {
	return mcp.NewToolWithRawSchema(name, description, schema)
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// clientCaps returns the capabilities the client declared for this
// request: its _meta at 2026-07-28, initialize's before.
func clientCaps(ctx context.Context) mcp.ClientCapabilities {
	if info := server.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern && info.ClientCapabilities != nil {
		return *info.ClientCapabilities
	}
	if s, ok := server.ClientSessionFromContext(ctx).(server.SessionWithClientInfo); ok {
		return s.GetClientCapabilities()
	}
	return mcp.ClientCapabilities{}
}

// has reports whether caps declares the named capability.
func has(caps mcp.ClientCapabilities, name string) bool {
	switch name {
	case "sampling":
		return caps.Sampling != nil
	case "elicitation":
		return caps.Elicitation != nil
	case "roots":
		return caps.Roots != nil
	}
	return false
}

// requireCaps returns 2026-07-28's -32021 when the client did not declare
// every named capability for this request (the engine answers with it:
// mcp-go alone would make it -32603). 2025-era sessions are not checked:
// mcp-go refuses the requests themselves there.
func requireCaps(ctx context.Context, names ...string) error {
	if !server.IsModernRequest(ctx) {
		return nil
	}
	caps := clientCaps(ctx)
	var missing []string
	need := map[string]any{}
	for _, n := range names {
		if !has(caps, n) {
			missing = append(missing, n)
			need[n] = map[string]any{}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": need})
	return &jsonrpc.Error{Code: -32021, Message: "missing required client capability: " + strings.Join(missing, ", "), Data: data}
}

// invalidParams is a -32602 error.
func invalidParams(format string, a ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

// setSlow records what became of the slow call id (none when empty); the
// map is cleared past 1000 ids.
func (f *fixtures) setSlow(id, status string) {
	if id == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.slow[id]; !ok && len(f.slow) >= 1000 {
		clear(f.slow)
	}
	f.slow[id] = status
}
