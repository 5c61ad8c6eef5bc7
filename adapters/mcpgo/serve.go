package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Serve implements httptransport.Engine: mcp-go handles the call with a
// ClientSession of the call's own, whose notifications go to the call's
// stream and nowhere else, all of them, in order, before the answer.
func (e *Engine) Serve(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	if call.Modern() && call.Request.Method == string(mcp.MethodSubscriptionsListen) {
		raw, s, err := e.prepare(ctx, call)
		if err != nil {
			return nil, err
		}
		return e.serveListen(ctx, call, s, raw)
	}
	if call.Session != nil {
		// The call may run on a fresh goroutine (a batch's, a
		// 2024-11-05 one's): see growStack.
		growStack(0)
	}
	return e.serve(ctx, call)
}

// prepare encodes the call's request for mcp-go and builds its session.
func (e *Engine) prepare(ctx context.Context, call *httptransport.Call) ([]byte, *session, error) {
	raw, err := call.Request.Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("mcpgo: encoding the request: %w", err)
	}
	s, err := e.callSession(ctx, call)
	if err != nil {
		return nil, nil, err
	}
	return raw, s, nil
}

// serve has mcp-go handle a call other than a listen.
func (e *Engine) serve(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	raw, s, err := e.prepare(ctx, call)
	if err != nil {
		return nil, err
	}
	defer s.pipe.close() // a panic in the handler, recovered by the transport
	hctx := e.handlerContext(ctx, s, call)
	resp := e.server.HandleMessage(hctx, raw)
	s.pipe.close() // every notification out before the answer
	if call.Session != nil {
		e.saveChanges(call.Session, s)
	}
	m, err := fromMCP(resp, call.Request.ID)
	if err != nil || m.Error == nil {
		return m, err
	}
	if m.Error.Code == jsonrpc.CodeInternalError {
		if je := hctx.Value(callKey{}).(*callInfo).handlerError(); je != nil {
			return jsonrpc.NewError(call.Request.ID, je), nil
		}
	}
	if call.Request.Method == string(mcp.MethodResourcesRead) && len(m.Error.Data) == 0 &&
		(m.Error.Code == jsonrpc.CodeInvalidParams || m.Error.Code == mcp.RESOURCE_NOT_FOUND) {
		m.Error.Data = notFoundData(call.Request.Params)
	}
	return m, nil
}

// notFoundData is the data of a resources/read error for an unknown
// resource, which should name the URI
// (https://modelcontextprotocol.io/specification/draft/server/resources#error-handling);
// mcp-go's error has none.
func notFoundData(params json.RawMessage) json.RawMessage {
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil || p.URI == "" {
		return nil
	}
	data, err := json.Marshal(map[string]string{"uri": p.URI})
	if err != nil {
		return nil
	}
	return data
}

// callSession builds the session a call runs with: its session's state for
// 2025-era session calls, an initialized one at the call's version for
// stateless ones, a bare one for 2026-07-28 (mcp-go reads the request's
// _meta).
func (e *Engine) callSession(ctx context.Context, call *httptransport.Call) (*session, error) {
	s := &session{kind: kindCall}
	base := ""
	if call.Session != nil {
		base = call.Session.ID
		s.long = e.long(call.Session.ID)
		st, err := callState(call.Session, s.long)
		if err != nil {
			return nil, err
		}
		s.st = st
	} else if !call.Modern() {
		s.st.ProtocolVersion = call.Version
	}
	s.id = e.nextID(base)
	s.initialized.Store(call.Request.Method != string(mcp.MethodInitialize))
	s.call = call
	s.pipe = newPipe(func(n mcp.JSONRPCNotification) {
		m, err := notificationFromMCP(n)
		if err != nil {
			e.log.Warn("mcpgo: dropping a notification", "error", logval.Err(err))
			return
		}
		_ = call.Send(ctx, m) // fails only once the call is over or cancelled
	}, nil)
	return s, nil
}

// handlerContext is the context mcp-go handles a request in.
func (e *Engine) handlerContext(ctx context.Context, s *session, call *httptransport.Call) context.Context {
	ctx = e.server.WithContext(ctx, s)
	// server/discover's supportedVersions: mcp-go's default, every
	// version it knows, is what the engine serves (e.versions).
	c := &callContext{Context: ctx}
	if call != nil {
		c.info.header = call.Header
		if call.Session != nil {
			c.info.sessionID = call.Session.ID
		}
	} else if s.long != nil || s.kind == kindLong {
		c.info.sessionID = s.owner().sessionID()
	}
	return c
}

// saveChanges applies what a call changed to its session's stored state,
// as stored now: concurrent calls of one session each add their own.
func (e *Engine) saveChanges(sess *httptransport.Session, s *session) {
	changes := s.takeChanges()
	if len(changes) == 0 {
		return
	}
	st, err := loadState(sess)
	if err != nil {
		e.log.Warn("mcpgo: replacing an unreadable session state", "error", logval.Err(err))
	}
	for _, f := range changes {
		f(&st)
	}
	saveState(sess, &st)
}
