package mcpgo

import (
	"context"
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/ctxend"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// serveListen serves a 2026-07-28 subscriptions/listen. Its session is
// registered with the server (MCPServer.RegisterSession, under the
// session's own id) so that mcp-go's broadcasts reach it; mcp-go filters
// them by what the client asked for. Every message is tagged with the
// subscription id, and the acknowledgement goes first.
//
// mcp-go's listen handler records the subscription on the session, sends
// the acknowledgement, then blocks until its context ends. Once the
// acknowledgement is out, and if it grants anything, the engine freezes
// the session (what mcp-go does to it from then on, undoing the
// subscription as its handler returns, is ignored), ends the handler, and
// returns ErrHold: the transport holds the stream, and an idle listen
// costs no goroutine. The session stays registered until the stream ends.
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
			e.log.Warn("mcpgo: dropping a notification", "error", logval.Err(err))
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
	}, e.deliver)

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errEngineClosed
	}
	e.listens[s] = struct{}{}
	e.wg.Add(1) // under mu: never concurrent with Close's Wait
	e.mu.Unlock()
	end := func() { // the listen is over here; it runs once
		e.server.UnregisterSession(context.WithoutCancel(ctx), s.id)
		e.dropListen(s)
		s.pipe.close()
		e.wg.Done()
	}
	if err := e.server.RegisterSession(ctx, s); err != nil {
		e.dropListen(s)
		e.wg.Done()
		return nil, err
	}
	hctx, cancel := context.WithCancel(ctx)
	respC := make(chan mcp.JSONRPCMessage, 1)
	go func() {
		defer cancel()
		respC <- e.server.HandleMessage(e.handlerContext(hctx, s, call), raw)
	}()
	select {
	case <-acked:
		s.frozen.Store(true) // before the handler's end undoes the subscription
		cancel()
		<-respC // the handler's answer: the transport sends the final one
		// The stream's end or the engine's ends it, and unregisters it
		// from the other: a finished listen is not kept until Close.
		ctxend.Either(ctx, e.ctx, end)
		return nil, httptransport.ErrHold
	case resp := <-respC:
		end()
		m, err := fromMCP(resp, call.Request.ID)
		if err != nil {
			m = jsonrpc.NewError(call.Request.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "internal error"))
		}
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
