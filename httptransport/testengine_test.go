package httptransport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestEngine is a small engine that exercises every part of the seam, so
// the transport's tests run fast and without the SDK:
//
//   - tools/call "echo" answers {"text": arguments.text, "who": subject};
//   - "progress" sends arguments.count progress notifications, waiting on
//     gate (when set) before each one after the first;
//   - "slow" blocks until its context ends and reports that on cancelled;
//   - "notewait" sends a log message, then does as slow;
//   - "sample" sends arguments.count log messages, then asks the client
//     sampling/createMessage and returns the answer;
//   - "remember" reports on started, waits for gate, then changes the
//     session's state (so the session is saved when it ends);
//   - "hold" returns ErrHold, which only a listen may;
//   - "state" answers the session's state as the call sees it;
//   - subscriptions/listen acknowledges, then relays broadcasts, holding
//     the stream with ErrHold when hold is set;
//   - server/discover, initialize and tools/list answer; other methods -32601.
type TestEngine struct {
	Started   chan string // text of slow calls that started
	Cancelled chan string // text of slow calls whose context ended
	SendErrs  chan error  // what Send returned after a slow call was cancelled
	Gate      chan struct{}
	Hold      bool // listen returns ErrHold instead of blocking

	// StallInits is how many initialize requests still to stall: each
	// reports "initialize" on Started, then waits for its context to end
	// and returns the context's error, as an engine that never answers.
	StallInits atomic.Int32

	Mu        sync.Mutex
	Outs      map[string]Sender // session streams, by session id
	Listeners map[*Call]bool
	Notified  []string
	Replies   chan *jsonrpc.Message // answers to requests sent through a session's Sender
}

func NewTestEngine() *TestEngine {
	return &TestEngine{
		Started:   make(chan string, 64),
		Cancelled: make(chan string, 64),
		SendErrs:  make(chan error, 64),
		Outs:      make(map[string]Sender),
		Listeners: make(map[*Call]bool),
		Replies:   make(chan *jsonrpc.Message, 8),
	}
}

func (e *TestEngine) Describe(context.Context) *Description {
	return &Description{ToolHeaders: map[string][]HeaderParam{
		"headered": {
			{Header: "Region", Path: []string{"region"}, Type: "string"},
			{Header: "Count", Path: []string{"count"}, Type: "integer"},
			{Header: "Flag", Path: []string{"flag"}, Type: "boolean"},
			{Header: "Zone", Path: []string{"loc", "zone"}, Type: "string"},
		},
	}}
}

type toolParams struct {
	Name      string `json:"name"`
	Arguments struct {
		Text  string  `json:"text"`
		Count float64 `json:"count"`
	} `json:"arguments"`
	Meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

func result(id jsonrpc.ID, v any) *jsonrpc.Message {
	b, _ := json.Marshal(v)
	return jsonrpc.NewResponse(id, b)
}

func (e *TestEngine) Serve(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	m := call.Request
	switch m.Method {
	case "initialize":
		if call.Modern() {
			break
		}
		if e.StallInits.Add(-1) >= 0 {
			e.Started <- "initialize"
			<-ctx.Done()
			return nil, ctx.Err()
		}
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		v := p.ProtocolVersion
		if v != Version20250326 && v != Version20250618 && v != Version20251125 && v != Version20241105 {
			v = Version20251125
		}
		if call.Session != nil {
			call.Session.SetState(json.RawMessage(`{"initialized":true}`))
		}
		return result(m.ID, map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{"listChanged": true}}, "serverInfo": map[string]any{"name": "test", "version": "1"}}), nil
	case "server/discover":
		if call.Modern() {
			return result(m.ID, map[string]any{"resultType": "complete", "supportedVersions": []string{Version20260728, Version20251125}, "capabilities": map[string]any{}, "ttlMs": 0, "cacheScope": "public"}), nil
		}
	case "tools/list":
		return result(m.ID, map[string]any{"tools": []any{}}), nil
	case "subscriptions/listen":
		if call.Modern() {
			return e.listen(ctx, call)
		}
	case "tools/call":
		return e.tool(ctx, call)
	}
	return jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method)), nil
}

func (e *TestEngine) tool(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	m := call.Request
	var p toolParams
	if err := json.Unmarshal(m.Params, &p); err != nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, err.Error())
	}
	switch p.Name {
	case "echo", "headered":
		who := ""
		if info := identity.FromContext(ctx); info != nil {
			who = info.Subject
		}
		return result(m.ID, map[string]any{"text": p.Arguments.Text, "who": who}), nil
	case "progress":
		for i := 1; i <= int(p.Arguments.Count); i++ {
			if i > 1 && e.Gate != nil {
				select {
				case <-e.Gate:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			params := fmt.Sprintf(`{"progressToken":%s,"progress":%d,"total":%d}`, p.Meta.ProgressToken, i, int(p.Arguments.Count))
			if err := call.Send(ctx, jsonrpc.NewNotification("notifications/progress", json.RawMessage(params))); err != nil {
				return nil, err
			}
		}
		return result(m.ID, map[string]any{"text": fmt.Sprint(p.Arguments.Count)}), nil
	case "state":
		// The session's state as this call sees it.
		state := ""
		if call.Session != nil {
			state = string(call.Session.State())
		}
		return result(m.ID, map[string]any{"text": state}), nil
	case "panic":
		panic("tool exploded")
	case "hold":
		return nil, ErrHold
	case "slow":
		e.Started <- p.Arguments.Text
		<-ctx.Done()
		e.Cancelled <- p.Arguments.Text
		e.SendErrs <- call.Send(context.Background(), jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":"late"}`)))
		return nil, ctx.Err()
	case "notewait":
		// One notification, then waits for its context like slow.
		if err := call.Send(ctx, jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":"waiting"}`))); err != nil {
			return nil, err
		}
		e.Started <- p.Arguments.Text
		<-ctx.Done()
		e.Cancelled <- p.Arguments.Text
		return nil, ctx.Err()
	case "remember":
		// Waits for the gate, then changes the session's state.
		e.Started <- p.Arguments.Text
		select {
		case <-e.Gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if call.Session != nil {
			call.Session.SetState(json.RawMessage(`{"initialized":true,"remembered":true}`))
		}
		return result(m.ID, map[string]any{"text": p.Arguments.Text}), nil
	case "sample":
		for range int(p.Arguments.Count) {
			if err := call.Send(ctx, jsonrpc.NewNotification("notifications/message", json.RawMessage(`{"level":"info","data":"asking"}`))); err != nil {
				return nil, err
			}
		}
		req := &jsonrpc.Message{JSONRPC: "2.0", ID: jsonrpc.Int64ID(1), Method: "sampling/createMessage", Params: json.RawMessage(`{"messages":[],"maxTokens":1}`)}
		if err := call.Send(ctx, req); err != nil {
			return jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, err.Error())), nil
		}
		select {
		case reply := <-call.Replies():
			if reply.ID != jsonrpc.Int64ID(1) {
				return nil, fmt.Errorf("reply id %s, want 1", reply.ID)
			}
			return result(m.ID, map[string]any{"text": string(reply.Result)}), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "unknown tool "+p.Name)), nil
}

func (e *TestEngine) listen(ctx context.Context, call *Call) (*jsonrpc.Message, error) {
	ack := `{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/subscriptionId":` + call.Request.ID.Raw() + `}}`
	e.Mu.Lock()
	e.Listeners[call] = true
	e.Mu.Unlock()
	if e.Hold {
		context.AfterFunc(ctx, func() {
			e.Mu.Lock()
			delete(e.Listeners, call)
			e.Mu.Unlock()
		})
		if err := call.Send(ctx, jsonrpc.NewNotification("notifications/subscriptions/acknowledged", json.RawMessage(ack))); err != nil {
			return nil, err
		}
		return nil, ErrHold
	}
	defer func() {
		e.Mu.Lock()
		delete(e.Listeners, call)
		e.Mu.Unlock()
	}()
	if err := call.Send(ctx, jsonrpc.NewNotification("notifications/subscriptions/acknowledged", json.RawMessage(ack))); err != nil {
		return nil, err
	}
	<-ctx.Done()
	return nil, ctx.Err()
}

// Broadcast sends tools/list_changed to every listen stream and session.
func (e *TestEngine) Broadcast() {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	for c := range e.Listeners {
		params := `{"_meta":{"io.modelcontextprotocol/subscriptionId":` + c.Request.ID.Raw() + `}}`
		_ = c.Send(context.Background(), jsonrpc.NewNotification("notifications/tools/list_changed", json.RawMessage(params)))
	}
	for _, out := range e.Outs {
		_ = out.Send(context.Background(), jsonrpc.NewNotification("notifications/tools/list_changed", nil))
	}
}

func (e *TestEngine) ListenerCount() int {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	return len(e.Listeners)
}

func (e *TestEngine) Notify(_ context.Context, sess *Session, msg *jsonrpc.Message) {
	e.Mu.Lock()
	e.Notified = append(e.Notified, msg.Method)
	e.Mu.Unlock()
}

// Reply implements SessionReplier.
func (e *TestEngine) Reply(_ context.Context, _ *Session, msg *jsonrpc.Message) {
	e.Replies <- msg
}

// SessionRequest sends a request outside any call, on session sid's stream.
func (e *TestEngine) SessionRequest(sid string, msg *jsonrpc.Message) error {
	e.Mu.Lock()
	out := e.Outs[sid]
	e.Mu.Unlock()
	if out == nil {
		return errors.New("no such session")
	}
	return out.Send(context.Background(), msg)
}

func (e *TestEngine) OpenSession(ctx context.Context, sess *Session, out Sender) error {
	e.Mu.Lock()
	e.Outs[sess.ID] = out
	e.Mu.Unlock()
	context.AfterFunc(ctx, func() {
		e.Mu.Lock()
		delete(e.Outs, sess.ID)
		e.Mu.Unlock()
	})
	return nil
}
