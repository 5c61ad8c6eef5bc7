package stdio

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// subscriptionIDKey is the _meta key that ties a notification to its
// 2026-07-28 listen (the listen request's id).
// https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
const subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"

// listen is a 2026-07-28 subscriptions/listen held open: what it asked
// for, of what the shared child offers.
type listen struct {
	id                     jsonrpc.ID
	tools, prompts, resLst bool
	uris                   map[string]bool
	box                    *outbox
}

// listenFilter is the notifications member of a listen request and of its
// acknowledgement.
type listenFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
}

// serveListen acknowledges a listen with what the shared child can send
// of what it asks for, then holds it (httptransport.ErrHold) until its
// stream ends. A listen granted nothing is answered at once.
func (e *Engine) serveListen(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	m := call.Request
	var p struct {
		Notifications listenFilter `json:"notifications"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error())
	}
	c, err := e.shared.get(ctx)
	if err != nil {
		return nil, err
	}
	caps, want := c.caps, p.Notifications
	grant := listenFilter{
		ToolsListChanged:     want.ToolsListChanged && caps.Tools != nil && caps.Tools.ListChanged,
		PromptsListChanged:   want.PromptsListChanged && caps.Prompts != nil && caps.Prompts.ListChanged,
		ResourcesListChanged: want.ResourcesListChanged && caps.Resources != nil && caps.Resources.ListChanged,
	}
	if caps.Resources != nil && caps.Resources.Subscribe {
		grant.ResourceSubscriptions = want.ResourceSubscriptions
	}
	l := &listen{id: m.ID, tools: grant.ToolsListChanged, prompts: grant.PromptsListChanged, resLst: grant.ResourcesListChanged, uris: make(map[string]bool), box: newOutbox(call.Send)}
	var subscribed []string
	for _, uri := range grant.ResourceSubscriptions {
		if l.uris[uri] {
			continue
		}
		if err := e.subscribe(ctx, uri); err != nil {
			for _, u := range subscribed {
				e.unsubscribe(u)
			}
			return nil, err
		}
		l.uris[uri] = true
		subscribed = append(subscribed, uri)
	}
	release := func() {
		for _, u := range subscribed {
			e.unsubscribe(u)
		}
	}
	meta, _ := json.Marshal(map[string]json.RawMessage{subscriptionIDKey: json.RawMessage(m.ID.Raw())})
	ack, _ := json.Marshal(map[string]any{"notifications": grant, "_meta": json.RawMessage(meta)})
	if err := call.Send(ctx, jsonrpc.NewNotification("notifications/subscriptions/acknowledged", ack)); err != nil {
		release()
		return nil, err
	}
	if !l.tools && !l.prompts && !l.resLst && len(l.uris) == 0 {
		release()
		return jsonrpc.NewResponse(m.ID, json.RawMessage(`{"resultType":"complete","_meta":`+string(meta)+`}`)), nil
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		release()
		return nil, errClosed
	}
	e.listens[l] = struct{}{}
	e.mu.Unlock()
	context.AfterFunc(ctx, func() {
		e.mu.Lock()
		delete(e.listens, l)
		e.mu.Unlock()
		release()
	})
	return nil, httptransport.ErrHold
}

// wants reports whether the listen asked for a notification: a list
// change by its method, a resource update (uri set) by its URI.
func (l *listen) wants(method, uri string) bool {
	switch method {
	case "notifications/tools/list_changed":
		return l.tools
	case "notifications/prompts/list_changed":
		return l.prompts
	case "notifications/resources/list_changed":
		return l.resLst
	case "notifications/resources/updated":
		return l.uris[uri]
	}
	return false
}

// broadcast sends a list change (uri empty) or a resource update to every
// session of the shared child that takes it (all for list changes, the
// subscribed ones for updates) and to every listen that asked for it,
// tagged with the listen's id.
func (e *Engine) broadcast(msg *jsonrpc.Message, uri string) {
	e.mu.Lock()
	var boxes []*outbox
	for _, s := range e.sessions {
		s.mu.Lock()
		if s.box != nil && s.sup == nil && (uri == "" || s.subs[uri]) {
			boxes = append(boxes, s.box)
		}
		s.mu.Unlock()
	}
	var ls []*listen
	for l := range e.listens {
		if l.wants(msg.Method, uri) {
			ls = append(ls, l)
		}
	}
	e.mu.Unlock()
	for _, b := range boxes {
		out := *msg
		b.send(&out, nil)
	}
	for _, l := range ls {
		params, err := tagSubscription(msg.Params, l.id)
		if err != nil {
			continue
		}
		l.box.send(jsonrpc.NewNotification(msg.Method, params), nil)
	}
}

// tagSubscription sets _meta's subscription id in params.
func tagSubscription(params json.RawMessage, id jsonrpc.ID) (json.RawMessage, error) {
	p, err := object(params)
	if err != nil {
		return nil, err
	}
	meta, err := object(p["_meta"])
	if err != nil {
		return nil, errors.New("_meta is not an object")
	}
	meta[subscriptionIDKey] = json.RawMessage(id.Raw())
	if p["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	return json.Marshal(p)
}
