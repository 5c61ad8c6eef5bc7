package mcpgo

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// serveListen serves a 2026-07-28 subscriptions/listen. Its session is
// registered with the server (MCPServer.RegisterSession, under the
// session's own id) so that mcp-go's broadcasts reach it; mcp-go filters
// them by what the client asked for. Every message is tagged with the
// subscription id, and the acknowledgement goes first. Once it is out, and
// if it grants anything, the transport holds the stream (ErrHold).
//
// mcp-go's listen handler blocks until the request's context ends, so a
// held listen keeps that one goroutine (docs/engines-mcpgo.md gives its
// cost); the engine's goroutine that carries notifications runs only while
// there are some.
func (e *Engine) serveListen(ctx context.Context, call *httptransport.Call, s *session, raw []byte) (*jsonrpc.Message, error) {
	s.kind = kindListen
	subID := json.RawMessage(call.Request.ID.Raw())
	acked := make(chan struct{})
	var seenAck bool
	var held []*jsonrpc.Message // sent before the acknowledgement
	send := func(m *jsonrpc.Message) { _ = call.Send(ctx, m) }
	s.pipe = newPipe(func(n mcp.JSONRPCNotification) {
		m, err := notificationFromMCP(tagSubscription(n, subID))
		if err != nil {
			e.logger.Warn("mcpgo: dropping a notification", "error", err)
			return
		}
		if n.Method != mcp.MethodNotificationSubscriptionsAcknowledged {
			if !seenAck {
				held = append(held, m)
			} else {
				send(m)
			}
			return
		}
		send(m)
		seenAck = true
		for _, h := range held {
			send(h)
		}
		held = nil
		if grantsAny(m.Params) {
			close(acked)
		}
	})

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errEngineClosed
	}
	e.listens[s] = struct{}{}
	e.wg.Add(1) // under mu: never concurrent with Close's Wait
	e.mu.Unlock()
	if err := e.server.RegisterSession(ctx, s); err != nil {
		e.dropListen(s)
		e.wg.Done()
		return nil, err
	}
	hctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(e.ctx, cancel) // Close ends it
	respC := make(chan *jsonrpc.Message, 1)
	go func() {
		defer e.wg.Done()
		defer cancel()
		defer stop()
		resp := e.server.HandleMessage(e.handlerContext(hctx, s, call), raw)
		e.server.UnregisterSession(context.WithoutCancel(ctx), s.id)
		e.dropListen(s)
		s.pipe.close()
		m, err := fromMCP(resp, call.Request.ID)
		if err != nil {
			m = jsonrpc.NewError(call.Request.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error"))
		}
		respC <- m
	}()
	select {
	case <-acked:
		return nil, httptransport.ErrHold
	case m := <-respC:
		return m, nil
	}
}

func (e *Engine) dropListen(s *session) {
	e.mu.Lock()
	delete(e.listens, s)
	e.mu.Unlock()
}

// grantsAny reports whether a listen's acknowledgement grants any
// notification, in which case mcp-go holds the listen until its context
// ends; with nothing granted it answers at once.
func grantsAny(params json.RawMessage) bool {
	var p struct {
		Notifications mcp.SubscriptionFilter `json:"notifications"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	return !p.Notifications.IsEmpty()
}
