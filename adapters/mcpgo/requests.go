package mcpgo

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// requests sends a session's server-to-client requests (sampling,
// elicitation, roots) and matches the client's answers to them.
type requests struct {
	send    func(context.Context, *jsonrpc.Message) error
	replies <-chan *jsonrpc.Message // a call's answers; nil when they come through deliver

	mu      sync.Mutex
	next    int64
	pending map[string]chan *jsonrpc.Message // by id key
}

func newRequests(send func(context.Context, *jsonrpc.Message) error, replies <-chan *jsonrpc.Message) *requests {
	return &requests{send: send, replies: replies, pending: make(map[string]chan *jsonrpc.Message)}
}

// do sends method with params and decodes the client's answer into result.
// A JSON-RPC error answer is returned as a *jsonrpc.Error.
func (r *requests) do(ctx context.Context, method string, params, result any) error {
	raw, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("mcpgo: encoding %s: %w", method, err)
	}
	r.mu.Lock()
	r.next++
	id := jsonrpc.Int64ID(r.next)
	ch := make(chan *jsonrpc.Message, 1)
	r.pending[id.Key()] = ch
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.pending, id.Key())
		r.mu.Unlock()
	}()
	msg := &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: id, Method: method, Params: raw}
	if err := r.send(ctx, msg); err != nil {
		return fmt.Errorf("mcpgo: sending %s: %w", method, err)
	}
	for {
		select {
		case m := <-ch:
			if m.Error != nil {
				return m.Error
			}
			if err := json.Unmarshal(m.Result, result); err != nil {
				return fmt.Errorf("mcpgo: decoding the answer to %s: %w", method, err)
			}
			return nil
		case m := <-r.replies: // nil for sessions: never ready
			r.deliver(m)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// deliver hands the client's answer to the request waiting for it; an
// answer nobody waits for is dropped.
func (r *requests) deliver(m *jsonrpc.Message) {
	key := m.ID.Key()
	r.mu.Lock()
	ch := r.pending[key]
	delete(r.pending, key)
	r.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}
