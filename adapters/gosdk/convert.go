package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/auth"
	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/jsonscan"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// toSDKRequest converts the client's request, attaching the caller's
// identity and the HTTP header for the handler (req.Extra).
func toSDKRequest(ctx context.Context, m *jsonrpc.Message, header map[string][]string) (gojsonrpc.Message, error) {
	var msg gojsonrpc.Message
	if req, ok := requestToSDK(m); ok {
		msg = req
	} else {
		var err error
		if msg, err = toSDK(m); err != nil {
			return nil, err
		}
	}
	if req, ok := msg.(*gojsonrpc.Request); ok {
		req.Extra = &mcp.RequestExtra{TokenInfo: tokenInfo(ctx), Header: header}
	}
	return msg, nil
}

// requestToSDK builds the SDK's form of a request directly, as toSDK's
// encoding and decoding would, when the request's method and params pass
// through that round trip unchanged (and its id is a plain string or a
// number); it reports false otherwise. It spares the SDK's JSON decoder,
// which allocates a large buffer per call.
func requestToSDK(m *jsonrpc.Message) (*gojsonrpc.Request, bool) {
	if m.Method == "" || m.JSONRPC != jsonrpc.Version || !jsonscan.PlainString(m.Method) ||
		len(m.Params) > 0 && !jsonscan.PlainRaw(m.Params) {
		return nil, false
	}
	var v any // the id as the SDK's decoder reads it
	switch raw := m.ID.Raw(); {
	case raw == "":
	case raw[0] == '"':
		s, ok := jsonscan.SimpleString([]byte(raw))
		if !ok {
			return nil, false
		}
		v = string(s)
	default:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil {
			return nil, false
		}
		v = f
	}
	id, err := gojsonrpc.MakeID(v)
	if err != nil {
		return nil, false
	}
	req := &gojsonrpc.Request{ID: id, Method: m.Method}
	if len(m.Params) > 0 {
		req.Params = m.Params
	}
	return req, true
}

func toSDK(m *jsonrpc.Message) (gojsonrpc.Message, error) {
	data, err := m.Encode()
	if err != nil {
		return nil, err
	}
	msg, err := gojsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, fmt.Errorf("gosdk: converting message: %w", err)
	}
	return msg, nil
}

// fromSDK converts a message the SDK writes. Requests, notifications and
// responses whose raw parts encoding/json would write unchanged (the SDK's
// own marshalling always gives such) are built directly; anything else
// takes the round trip through both encoders, which gives the same
// message.
func fromSDK(msg gojsonrpc.Message) (*jsonrpc.Message, error) {
	if out, ok := messageFromSDK(msg); ok {
		return out, nil
	}
	data, err := gojsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, fmt.Errorf("gosdk: encoding SDK message: %w", err)
	}
	out, err := jsonrpc.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("gosdk: decoding SDK message: %w", err)
	}
	return out, nil
}

// messageFromSDK builds the transport's form of msg as the round trip
// would, or reports false when it cannot tell that the result would be the
// same: an id other than an integer or absent, an error that is not a
// plain *jsonrpc.Error, raw parts needing compaction, or a message the
// round trip would refuse.
func messageFromSDK(msg gojsonrpc.Message) (*jsonrpc.Message, bool) {
	out := &jsonrpc.Message{JSONRPC: jsonrpc.Version}
	var id gojsonrpc.ID
	switch m := msg.(type) {
	case *gojsonrpc.Request:
		if m.Method == "" || !jsonscan.PlainString(m.Method) || !rawObject(m.Params) {
			return nil, false
		}
		id, out.Method, out.Params = m.ID, m.Method, m.Params
	case *gojsonrpc.Response:
		switch e := m.Error.(type) {
		case nil:
			if len(m.Result) == 0 || !jsonscan.Compact(m.Result) {
				return nil, false
			}
			out.Result = m.Result
		case *gojsonrpc.Error:
			if e == nil || len(m.Result) > 0 || !jsonscan.PlainString(e.Message) || len(e.Data) > 0 && !jsonscan.Compact(e.Data) {
				return nil, false
			}
			out.Error = &jsonrpc.Error{Code: e.Code, Message: e.Message, Data: e.Data}
		default:
			return nil, false
		}
		id = m.ID
		if !id.IsValid() {
			return nil, false
		}
	default:
		return nil, false
	}
	switch v := id.Raw().(type) {
	case nil:
	case int64:
		out.ID = jsonrpc.Int64ID(v)
	default:
		return nil, false
	}
	if len(out.Params) == 0 {
		out.Params = nil
	}
	if out.Error != nil && len(out.Error.Data) == 0 {
		out.Error.Data = nil
	}
	return out, true
}

// rawObject reports whether params are absent, or a compact JSON object or
// array (the shapes the transport's decoder accepts).
func rawObject(params json.RawMessage) bool {
	if len(params) == 0 {
		return true
	}
	return (params[0] == '{' || params[0] == '[') && jsonscan.Compact(params)
}

// tokenInfo converts the verified caller into the SDK's TokenInfo.
func tokenInfo(ctx context.Context) *auth.TokenInfo {
	info := identity.FromContext(ctx)
	if info == nil {
		return nil
	}
	return &auth.TokenInfo{Scopes: info.Scopes, Expiration: info.Expiry, UserID: info.Subject, Extra: info.Claims}
}
