package mcpgo

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// errNoResponse is returned when mcp-go answers a request with nothing.
var errNoResponse = errors.New("mcpgo: the server gave no response")

// fromMCP converts mcp-go's answer to a request into the transport's
// message, with the request's own id (mcp-go's decoding of the id turns
// numbers into float64).
func fromMCP(resp mcp.JSONRPCMessage, id jsonrpc.ID) (*jsonrpc.Message, error) {
	if resp == nil {
		return nil, errNoResponse
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return nil, fmt.Errorf("mcpgo: encoding the response: %w", err)
	}
	m, err := jsonrpc.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("mcpgo: decoding the response: %w", err)
	}
	m.ID = id
	return m, nil
}

// notificationFromMCP converts a notification mcp-go sends to a session.
func notificationFromMCP(n mcp.JSONRPCNotification) (*jsonrpc.Message, error) {
	n.JSONRPC = jsonrpc.Version
	data, err := json.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("mcpgo: encoding notification %q: %w", truncate(n.Method), err)
	}
	m, err := jsonrpc.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("mcpgo: decoding notification %q: %w", truncate(n.Method), err)
	}
	return m, nil
}

// tagSubscription returns n with the listen's subscription id in its
// _meta, as 2026-07-28 requires of every message on a listen stream. The
// _meta map is copied: mcp-go hands one notification to every session.
func tagSubscription(n mcp.JSONRPCNotification, id json.RawMessage) mcp.JSONRPCNotification {
	meta := make(map[string]any, len(n.Params.Meta)+1)
	maps.Copy(meta, n.Params.Meta)
	meta[mcp.MetaKeySubscriptionID] = id
	n.Params.Meta = meta
	return n
}
