package mcpgo

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// errNoResponse is returned when mcp-go answers a request with nothing.
var errNoResponse = errors.New("mcpgo: the server gave no response")

// fromMCP converts mcp-go's answer to a request into the transport's
// message, with the request's own id (mcp-go's decoding of the id turns
// numbers into float64).
func fromMCP(resp mcp.JSONRPCMessage, id jsonrpc.ID) (*jsonrpc.Message, error) {
	switch r := resp.(type) {
	case nil:
		return nil, errNoResponse
	case mcp.JSONRPCResponse:
		// Only the result is encoded: encoding the envelope and decoding
		// it again would give the same message, slower.
		raw, err := encodeResult(r.Result)
		if err != nil {
			return nil, fmt.Errorf("mcpgo: encoding the result: %w", err)
		}
		return jsonrpc.NewResponse(id, raw), nil
	case mcp.JSONRPCError:
		e := &jsonrpc.Error{Code: int64(r.Error.Code), Message: r.Error.Message}
		if r.Error.Data != nil {
			raw, err := json.Marshal(r.Error.Data)
			if err != nil {
				return nil, fmt.Errorf("mcpgo: encoding the error's data: %w", err)
			}
			e.Data = raw
		}
		return jsonrpc.NewError(id, e), nil
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

// encodeResult is json.Marshal(v) for the result of mcp-go's answer. A
// CallToolResult encodes itself (its MarshalJSON, by encoding/json):
// json.Marshal would then check and compact those bytes once more, which
// the transport does anyway as it writes the answer (an invalid result
// becomes a -32603 error there).
func encodeResult(v any) ([]byte, error) {
	switch r := v.(type) {
	case *mcp.CallToolResult:
		if r != nil {
			return r.MarshalJSON()
		}
	case mcp.CallToolResult:
		return r.MarshalJSON()
	}
	return json.Marshal(v)
}

// notificationFromMCP converts a notification mcp-go sends to a session.
func notificationFromMCP(n mcp.JSONRPCNotification) (*jsonrpc.Message, error) {
	n.JSONRPC = jsonrpc.Version
	data, err := json.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("mcpgo: encoding notification %s: %w", logval.String(n.Method), err)
	}
	m, err := jsonrpc.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("mcpgo: decoding notification %s: %w", logval.String(n.Method), err)
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
