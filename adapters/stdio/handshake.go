package stdio

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// childVersions are the protocol versions a child may negotiate over
// stdio, oldest first: those with an initialize handshake.
var childVersions = []string{
	httptransport.Version20241105,
	httptransport.Version20250326,
	httptransport.Version20250618,
	httptransport.Version20251125,
}

// newestChildVersion is what the engine asks the shared child for: as the
// lifecycle's version negotiation has it, the client sends the newest
// version it supports and the server answers with it or with another it
// supports (its newest).
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
var newestChildVersion = childVersions[len(childVersions)-1]

// engineInfo is the clientInfo the shared child is told.
var engineInfo = json.RawMessage(`{"name":"mcpmount-stdio","version":"1.0.0"}`)

// sharedInitParams are the shared child's initialize params: the newest
// version and no client capabilities, since requests of the child's could
// not be tied to a client.
func sharedInitParams() json.RawMessage {
	return json.RawMessage(`{"protocolVersion":"` + newestChildVersion + `","capabilities":{},"clientInfo":` + string(engineInfo) + `}`)
}

// launch starts a child and initializes it with params; it returns the
// child's error answer as a *jsonrpc.Error. A child that fails is
// stopped.
func launch(ctx context.Context, cmd Command, cfg *config, o owner, params json.RawMessage) (*child, error) {
	c, err := startChild(cmd, cfg, o)
	if err != nil {
		return nil, err
	}
	if err := c.initialize(ctx, params); err != nil {
		c.p.stop(cfg.stopTimeout)
		c.waitAnswers()
		return nil, err
	}
	return c, nil
}

// initialize runs the handshake: initialize, then
// notifications/initialized, bounded by Options.StartTimeout.
func (c *child) initialize(ctx context.Context, params json.RawMessage) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.startTimeout)
	defer cancel()
	resp, _, err := c.roundTrip(ctx, "initialize", params, nil)
	if err != nil {
		c.mu.Lock()
		gone := c.gone
		c.mu.Unlock()
		if gone != nil {
			return fmt.Errorf("stdio: initialize: %w", gone)
		}
		return fmt.Errorf("stdio: initialize: %w", err)
	}
	if resp.Error != nil {
		c.mu.Lock()
		gone := c.gone
		c.mu.Unlock()
		if gone != nil {
			return fmt.Errorf("stdio: initialize: %w", gone)
		}
		return resp.Error
	}
	var res struct {
		ProtocolVersion string     `json:"protocolVersion"`
		Capabilities    serverCaps `json:"capabilities"`
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		return fmt.Errorf("stdio: reading the child's initialize result: %w", err)
	}
	if !slices.Contains(childVersions, res.ProtocolVersion) {
		return fmt.Errorf("stdio: the child answered initialize with protocol version %s, which this engine does not speak", logval.Bound(res.ProtocolVersion, 40))
	}
	c.initResult, c.version, c.caps = resp.Result, res.ProtocolVersion, res.Capabilities
	if err := c.send(jsonrpc.NewNotification("notifications/initialized", nil)); err != nil {
		return fmt.Errorf("stdio: notifications/initialized: %w", err)
	}
	return nil
}
