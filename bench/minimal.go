package bench

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// MinimalEngine is the smallest honest httptransport.Engine: it decodes a
// tools/call's params into the same struct as the floor and encodes the
// same result with encoding/json. It serves initialize, the echo and
// progress tools and subscriptions/listen, and Broadcast fans a
// tools/list_changed out to every listen stream.
type MinimalEngine struct {
	desc *httptransport.Description

	mu        sync.Mutex
	listeners map[*httptransport.Call]struct{}
	sessions  map[string]httptransport.Sender // 2025-era sessions' standalone streams
}

var _ httptransport.Engine = (*MinimalEngine)(nil)

// NewMinimalEngine returns an engine with no listeners.
func NewMinimalEngine() *MinimalEngine {
	return &MinimalEngine{desc: &httptransport.Description{}, listeners: make(map[*httptransport.Call]struct{}), sessions: make(map[string]httptransport.Sender)}
}

// Describe implements httptransport.Engine: nothing to validate beyond the
// transport's own checks, computed once.
func (e *MinimalEngine) Describe(context.Context) *httptransport.Description { return e.desc }

// Serve implements httptransport.Engine.
func (e *MinimalEngine) Serve(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	m := call.Request
	switch m.Method {
	case "tools/call":
		var p ToolParams
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, err.Error())
		}
		switch p.Name {
		case "echo":
			return resultMessage(m.ID, EchoResult(p.Arguments.Text))
		case "progress":
			for i := 1; i <= p.Arguments.Count; i++ {
				params, err := json.Marshal(&ProgressParams{ProgressToken: p.Meta.ProgressToken, Progress: i, Total: p.Arguments.Count})
				if err != nil {
					return nil, err
				}
				if err := call.Send(ctx, jsonrpc.NewNotification("notifications/progress", params)); err != nil {
					return nil, err
				}
			}
			return resultMessage(m.ID, EchoResult(ProgressDone))
		}
		return jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown tool "+p.Name)), nil
	case "subscriptions/listen":
		if call.Modern() {
			return e.listen(ctx, call)
		}
	case "initialize":
		if !call.Modern() {
			return jsonrpc.NewResponse(m.ID, json.RawMessage(`{"protocolVersion":"`+call.Version+`","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"minimal","version":"1"}}`)), nil
		}
	}
	return jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method)), nil
}

func resultMessage(id jsonrpc.ID, v any) (*jsonrpc.Message, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonrpc.NewResponse(id, b), nil
}

func (e *MinimalEngine) listen(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	ack := `{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":` + call.Request.ID.Raw() + `}}`
	if err := call.Send(ctx, jsonrpc.NewNotification("notifications/subscriptions/acknowledged", json.RawMessage(ack))); err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.listeners[call] = struct{}{}
	e.mu.Unlock()
	// Hold the stream without a goroutine: the transport cancels ctx
	// when the stream ends.
	context.AfterFunc(ctx, func() {
		e.mu.Lock()
		delete(e.listeners, call)
		e.mu.Unlock()
	})
	return nil, httptransport.ErrHold
}

// Broadcast sends notifications/tools/list_changed, tagged with each
// subscription's id, to every listen stream, and untagged to every
// 2025-era session.
func (e *MinimalEngine) Broadcast() {
	e.mu.Lock()
	calls := make([]*httptransport.Call, 0, len(e.listeners))
	for c := range e.listeners {
		calls = append(calls, c)
	}
	outs := make([]httptransport.Sender, 0, len(e.sessions))
	for _, out := range e.sessions {
		outs = append(outs, out)
	}
	e.mu.Unlock()
	ctx := context.Background()
	parallel(len(calls), func(i int) {
		c := calls[i]
		params := `{"_meta":{"io.modelcontextprotocol/subscriptionId":` + c.Request.ID.Raw() + `}}`
		_ = c.Send(ctx, jsonrpc.NewNotification("notifications/tools/list_changed", json.RawMessage(params)))
	})
	parallel(len(outs), func(i int) {
		_ = outs[i].Send(ctx, jsonrpc.NewNotification("notifications/tools/list_changed", nil))
	})
}

// Notify implements httptransport.Engine.
func (e *MinimalEngine) Notify(context.Context, *httptransport.Session, *jsonrpc.Message) {}

// OpenSession implements httptransport.Engine: it keeps the session's
// standalone stream for Broadcast until the session ends.
func (e *MinimalEngine) OpenSession(ctx context.Context, sess *httptransport.Session, out httptransport.Sender) error {
	e.mu.Lock()
	e.sessions[sess.ID] = out
	e.mu.Unlock()
	context.AfterFunc(ctx, func() {
		e.mu.Lock()
		if e.sessions[sess.ID] == out { // not a later copy of the session's
			delete(e.sessions, sess.ID)
		}
		e.mu.Unlock()
	})
	return nil
}
