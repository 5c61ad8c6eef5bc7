package mcpgo

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
)

// Describe implements httptransport.Engine. The description (the versions,
// and the tools' x-mcp-header arguments from MCPServer.ListTools) is
// computed once and again after the server announces a tool-list change,
// which mcp-go does when tools change on a server with the tools
// listChanged capability (server.WithToolCapabilities(true)). On a server
// without it, call Refresh after changing tools.
func (e *Engine) Describe(context.Context) *httptransport.Description {
	e.descMu.Lock()
	if d := e.desc; d != nil {
		e.descMu.Unlock()
		return d
	}
	gen := e.descGen
	e.descMu.Unlock()
	d := e.describe()
	e.descMu.Lock()
	if e.descGen == gen {
		e.desc = d
	}
	e.descMu.Unlock()
	return d
}

// Refresh drops the cached description, so that the next request sees the
// server's tools as they are now.
func (e *Engine) Refresh() {
	e.descMu.Lock()
	e.desc = nil
	e.descGen++
	e.descMu.Unlock()
}

func (e *Engine) describe() *httptransport.Description {
	d := &httptransport.Description{Versions: slices.Clone(e.versions)}
	for name, t := range e.server.ListTools() {
		raw, err := json.Marshal(t.Tool)
		if err != nil {
			continue
		}
		var tool struct {
			InputSchema map[string]any `json:"inputSchema"`
		}
		if json.Unmarshal(raw, &tool) != nil {
			continue
		}
		if params := headerParams(tool.InputSchema, nil); len(params) > 0 {
			if d.ToolHeaders == nil {
				d.ToolHeaders = make(map[string][]httptransport.HeaderParam)
			}
			d.ToolHeaders[name] = params
		}
	}
	return d
}

// headerParams finds the properties annotated with x-mcp-header, following
// only "properties" keys, at any depth
// (https://modelcontextprotocol.io/specification/draft/basic/transports#custom-headers-from-tool-parameters).
func headerParams(schema map[string]any, path []string) []httptransport.HeaderParam {
	props, _ := schema["properties"].(map[string]any)
	var out []httptransport.HeaderParam
	for name, p := range props {
		prop, _ := p.(map[string]any)
		if prop == nil {
			continue
		}
		at := append(slices.Clone(path), name)
		if h, ok := prop["x-mcp-header"].(string); ok && h != "" {
			typ, _ := prop["type"].(string)
			out = append(out, httptransport.HeaderParam{Header: h, Path: at, Type: typ})
		}
		if _, nested := prop["properties"]; nested {
			out = append(out, headerParams(prop, at)...)
		}
	}
	return out
}

// startWatcher registers the engine's own session with the server: it
// takes mcp-go's broadcasts, and any of them (a list change, mostly)
// drops the cached description, at once, on the goroutine that changed
// the list: a request that follows sees the change.
func (e *Engine) startWatcher() {
	w := &session{id: e.tag + "-watcher", kind: kindWatcher, onNotify: e.Refresh}
	w.initialized.Store(true)
	w.pipe = newPipe(func(mcp.JSONRPCNotification) {}, nil)
	if err := e.server.RegisterSession(e.ctx, w); err != nil {
		e.log.Warn("mcpgo: registering the tool watcher failed; call Refresh after changing tools", "error", logval.Err(err))
		return
	}
	e.watcher = w
}
