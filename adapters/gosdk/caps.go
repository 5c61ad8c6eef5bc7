package gosdk

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// capSet is a set of the server capabilities that gate methods.
type capSet uint32

const (
	capLogging capSet = 1 << iota
	capCompletions
	capPrompts
	capResources
	capTools

	capsKnown // set in a cached value: the rest is the server's answer
)

// methodCapability is the server capability a method needs, or 0 for a
// method no capability gates. A switch on the name: nothing is built or
// allocated per call.
func methodCapability(method string) capSet {
	switch method {
	case "tools/call", "tools/list":
		return capTools
	case "resources/read", "resources/list", "resources/templates/list",
		"resources/subscribe", "resources/unsubscribe":
		return capResources
	case "prompts/get", "prompts/list":
		return capPrompts
	case "completion/complete":
		return capCompletions
	case "logging/setLevel":
		return capLogging
	}
	return 0
}

// capCache holds what the server's own server/discover advertises.
type capCache struct {
	v   atomic.Uint32 // capSet|capsKnown, or 0 when not known
	mu  sync.Mutex
	gen uint64 // bumped by every invalidation
}

func (c *capCache) invalidate() {
	c.mu.Lock()
	c.gen++
	c.v.Store(0)
	c.mu.Unlock()
}

// gateCapability answers a 2026-07-28 request for a method behind a
// capability the server does not advertise in server/discover with -32601,
// which the transport sends with 404 (spec 2026-07-28 basic/transports/streamable-http; spec 2026-07-28 basic/lifecycle: capabilities must
// tell the truth, and conformance checks that a missing one gives -32601).
// It returns nil for a request the SDK should answer.
//
// 2025-era calls are not gated: there the capabilities a session knows are
// those of its initialize result, the spec leaves the answer to the server,
// and the SDK answers (an empty prompts/list, say), as before.
//
// The capabilities are the SDK's own discover result, cached until the
// server announces a list change to the engine's watcher. The cache only
// ever lets a call through: a method it says is not advertised is checked
// against a fresh discover before it is refused, since the SDK announces
// changes a moment after they happen (a prompt just added is served at
// once). A call the cache lets through costs a switch and an atomic load.
func (e *Engine) gateCapability(ctx context.Context, call *httptransport.Call) *jsonrpc.Message {
	need := methodCapability(call.Request.Method)
	if need == 0 {
		return nil
	}
	if c := capSet(e.caps.v.Load()); c&capsKnown != 0 && c&need != 0 {
		return nil
	}
	c, ok := e.discoverCaps(ctx)
	if !ok || c&need != 0 {
		return nil // unknown: leave the answer to the SDK
	}
	return jsonrpc.NewError(call.Request.ID, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found"))
}

// discoverCaps asks the server for its capabilities and caches the answer
// if no list change was announced meanwhile. ok is false if the server
// could not be asked.
func (e *Engine) discoverCaps(ctx context.Context) (c capSet, ok bool) {
	watched := e.ensureWatcher() // before asking: no later change goes unseen
	e.caps.mu.Lock()
	gen := e.caps.gen
	e.caps.mu.Unlock()
	raw, err := e.request(ctx, "server/discover", map[string]any{"_meta": modernMeta()})
	if err != nil {
		if ctx.Err() == nil { // a client that left is not worth a warning
			e.log.Warn("gosdk: server/discover for the capability check failed", "error", logval.Err(err))
		}
		return 0, false
	}
	var res struct {
		Capabilities struct {
			Logging     json.RawMessage `json:"logging"`
			Completions json.RawMessage `json:"completions"`
			Prompts     json.RawMessage `json:"prompts"`
			Resources   json.RawMessage `json:"resources"`
			Tools       json.RawMessage `json:"tools"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		e.log.Warn("gosdk: reading server/discover for the capability check failed", "error", logval.Err(err))
		return 0, false
	}
	for _, f := range []struct {
		raw json.RawMessage
		bit capSet
	}{
		{res.Capabilities.Logging, capLogging},
		{res.Capabilities.Completions, capCompletions},
		{res.Capabilities.Prompts, capPrompts},
		{res.Capabilities.Resources, capResources},
		{res.Capabilities.Tools, capTools},
	} {
		if len(f.raw) > 0 && string(f.raw) != "null" {
			c |= f.bit
		}
	}
	if watched {
		e.caps.mu.Lock()
		if e.caps.gen == gen {
			e.caps.v.Store(uint32(c | capsKnown))
		}
		e.caps.mu.Unlock()
	}
	return c, true
}
