package mcpgo

import (
	"context"
	"fmt"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/ctxend"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Notify implements httptransport.Engine: the notification goes to mcp-go
// (its notification handlers) with the session's registered copy as its
// ClientSession, or one built from the session's state.
func (e *Engine) Notify(ctx context.Context, sess *httptransport.Session, msg *jsonrpc.Message) {
	if sess == nil {
		return
	}
	raw, err := msg.Encode()
	if err != nil {
		return
	}
	s := e.long(sess.ID)
	if s == nil {
		st, err := loadState(sess)
		if err != nil {
			e.log.Warn("mcpgo: notification for a session with an unreadable state", "error", logval.Err(err))
			return
		}
		s = &session{id: e.nextID(sess.ID), kind: kindCall, st: st,
			pipe: newPipe(func(mcp.JSONRPCNotification) {}, nil)} // no stream to send on
		s.initialized.Store(st.Initialized)
		defer s.pipe.close()
	}
	e.server.HandleMessage(e.handlerContext(ctx, s, nil), raw)
}

// Reply implements httptransport.SessionReplier: the client's answer to a
// request a handler sent on the session outside any call (roots/list from
// a notification handler, say).
func (e *Engine) Reply(_ context.Context, sess *httptransport.Session, msg *jsonrpc.Message) {
	if s := e.long(sess.ID); s != nil && s.reqs != nil {
		s.reqs.deliver(msg)
	}
}

// OpenSession implements httptransport.Engine: the session is registered
// with the server (MCPServer.RegisterSession) under its own id while it is
// open here, so that mcp-go's broadcasts (list changes), notifications to
// it (SendNotificationToSpecificClient) and per-session tools and resources
// reach it; what it is sent goes to out, the session's standalone stream.
func (e *Engine) OpenSession(ctx context.Context, sess *httptransport.Session, out httptransport.Sender) error {
	st, err := loadState(sess)
	if err != nil {
		return err
	}
	s := &session{id: sess.ID, kind: kindLong, st: st}
	s.initialized.Store(st.Initialized)
	box := newOutbox(ctx, out, func(m *jsonrpc.Message) {
		e.log.Warn("mcpgo: dropping a message for a client that is not taking them", "session", logval.String(sess.ID), "method", logval.String(m.Method))
	}, e.deliver)
	s.pipe = newPipe(func(n mcp.JSONRPCNotification) {
		m, err := notificationFromMCP(n)
		if err != nil {
			e.log.Warn("mcpgo: dropping a notification", "error", logval.Err(err))
			return
		}
		box.send(m)
	}, e.deliver)
	s.reqs = newRequests(out.Send, nil)
	s.reqs.done = ctx.Done()

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return errEngineClosed
	}
	if old := e.longs[sess.ID]; old != nil {
		// An earlier copy of this session here is still ending.
		e.server.UnregisterSession(ctx, sess.ID)
	}
	e.longs[sess.ID] = s
	e.wg.Add(1) // under mu: never concurrent with Close's Wait
	e.mu.Unlock()
	if err := e.server.RegisterSession(ctx, s); err != nil {
		e.dropLong(s)
		e.wg.Done()
		return fmt.Errorf("mcpgo: registering session %s: %w", logval.String(sess.ID), err)
	}
	// The session costs no goroutine while it lives: its end, or the
	// engine's, runs what follows.
	ctxend.Either(ctx, e.ctx, func() {
		defer e.wg.Done()
		if e.dropLong(s) {
			e.server.UnregisterSession(context.WithoutCancel(ctx), sess.ID)
		}
		s.pipe.close()
		box.wait()
	})
	return nil
}

// dropLong forgets s, if it is still the registered copy of its session,
// and reports whether it was.
func (e *Engine) dropLong(s *session) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.longs[s.id] == s {
		delete(e.longs, s.id)
		return true
	}
	return false
}

// long returns the registered copy of the session id here, or nil.
func (e *Engine) long(id string) *session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.longs[id]
}

// sessionID is a long session's mcpmount session id.
func (s *session) sessionID() string { return s.id }

// ResourceUpdated sends notifications/resources/updated for uri to every
// 2025-era session open on this instance that subscribed to it
// (resources/subscribe) and to every 2026-07-28 listen here that asked for
// it. mcp-go keeps subscriptions on its sessions but has no call that
// notifies them.
func (e *Engine) ResourceUpdated(uri string) {
	e.mu.Lock()
	var targets []*session
	for _, s := range e.longs {
		targets = append(targets, s)
	}
	for s := range e.listens {
		targets = append(targets, s)
	}
	e.mu.Unlock()
	for _, s := range targets {
		if !s.IsSubscribedToResource(uri) || !s.Initialized() {
			continue
		}
		n := mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION, Notification: mcp.Notification{
			Method: string(mcp.MethodNotificationResourceUpdated),
			Params: mcp.NotificationParams{AdditionalFields: map[string]any{"uri": uri}},
		}}
		s.pipe.reserve()
		select {
		case s.pipe.channel() <- n:
		default: // the pipe closed meanwhile
		}
	}
}
