package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// callConn is an SDK connection that carries exactly one call: it reads
// the request once, then only the client's answers to the call's
// server-to-client requests; it writes the handler's messages to the
// call's stream and hands the response back to Serve.
type callConn struct {
	ctx      context.Context
	call     *httptransport.Call
	listen   bool
	hub      *hub      // where a listen goes once acknowledged (listen calls)
	listener *listener // the listen in the hub, once acknowledged

	mu        sync.Mutex
	delivered bool
	acked     chan struct{} // listen calls: closed once the SDK holds the subscription
	ackOnce   sync.Once
	respC     chan *jsonrpc.Message
	pongs     chan gojsonrpc.Message // answers to the SDK's pings the client cannot get (pong)
	closed    chan struct{}
	closeOnce sync.Once
}

// newCallConn returns the connection of call; a listen's (hub not nil)
// joins the hub when the SDK acknowledges it.
func newCallConn(ctx context.Context, call *httptransport.Call, hub *hub) *callConn {
	c := &callConn{ctx: ctx, call: call, listen: hub != nil, hub: hub, respC: make(chan *jsonrpc.Message, 1), closed: make(chan struct{}), pongs: make(chan gojsonrpc.Message, 1)}
	if hub != nil {
		c.acked = make(chan struct{})
	}
	return c
}

// Connect implements mcp.Transport.
func (c *callConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// Read implements mcp.Connection.
func (c *callConn) Read(ctx context.Context) (gojsonrpc.Message, error) {
	c.mu.Lock()
	first := !c.delivered
	c.delivered = true
	c.mu.Unlock()
	if first {
		return toSDKRequest(c.ctx, c.call.Request, c.call.Header)
	}
	select {
	case reply := <-c.call.Replies():
		return toSDK(reply)
	case pong := <-c.pongs:
		return pong, nil
	case <-c.ctx.Done():
		return nil, c.ctx.Err()
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection.
func (c *callConn) Write(ctx context.Context, msg gojsonrpc.Message) error {
	ping, _ := msg.(*gojsonrpc.Request)
	if ping != nil && (ping.Method != "ping" || !ping.IsCall()) {
		ping = nil
	}
	if ping != nil && c.call.Replies() == nil { // 2026-07-28 and stateless calls
		return c.pong(ping)
	}
	out, err := fromSDK(msg)
	if err != nil {
		return err
	}
	if out.IsResponse() {
		out.ID = c.call.Request.ID
		select {
		case c.respC <- out:
		default:
		}
		return nil
	}
	if out.IsNotification() && sessionLevel(out.Method) {
		// The SDK broadcasts list changes to every session it knows,
		// this one-call connection included; they belong on the session's
		// GET stream, never on a call's (spec 2025-11-25
		// basic/transports#multiple-connections; spec 2026-07-28
		// basic/transports/streamable-http), and a listen's come from the
		// engine's hub (hub.go), not from this connection.
		return nil
	}
	if c.listen && out.Method == methodAcknowledged {
		return c.acknowledge(ctx, out)
	}
	if err := c.call.Send(ctx, out); err != nil {
		if ping != nil && errors.Is(err, httptransport.ErrNoStream) {
			return c.pong(ping) // a session call whose client takes only JSON
		}
		if out.IsRequest() {
			return rejected(err)
		}
		return err
	}
	return nil
}

const methodAcknowledged = "notifications/subscriptions/acknowledged"

// acknowledge writes a listen's acknowledgement. A listen that the SDK
// holds (it granted something) joins the hub first, so that no change
// announced after the acknowledgement is missed, and gets messages once
// the acknowledgement is out; Serve then closes the SDK's session for it.
func (c *callConn) acknowledge(ctx context.Context, ack *jsonrpc.Message) error {
	f, err := parseAck(ack.Params)
	if err != nil {
		return err
	}
	if !f.held() {
		return c.call.Send(ctx, ack) // the SDK answers at once
	}
	l, err := c.hub.join(c.ctx, c.call, f)
	if err != nil {
		return err // the SDK fails the listen with it: nothing was sent
	}
	if err := c.call.Send(ctx, ack); err != nil {
		if l.stop() {
			c.hub.leave(l)
		}
		return err
	}
	c.hub.markReady(l)
	c.listener = l
	c.ackOnce.Do(func() { close(c.acked) })
	return nil
}

// pong answers a ping on the connection of a call that cannot carry
// requests to the client (2026-07-28, stateless, a POST that takes only
// JSON): the SDK's keepalive
// (ServerOptions.KeepAlive) pings every session it connects, and would
// otherwise close this one, and the call with it, when the ping fails.
// The client is there for as long as the call's HTTP request is open,
// which is what the answer says.
func (c *callConn) pong(req *gojsonrpc.Request) error {
	select {
	case c.pongs <- &gojsonrpc.Response{ID: req.ID, Result: json.RawMessage("{}")}:
		return nil
	case <-c.closed:
		return io.EOF
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
}

// codeRejected is the code of the SDK's "rejected by transport" error.
const codeRejected = -32005

// rejected marks err so that the SDK fails the one request it concerns
// (a handler's roots/list in a call that cannot reach the client, say)
// and the handler gets the error, instead of taking the connection down,
// and the call's answer with it: the SDK's jsonrpc2 layer treats errors
// matching its rejected-by-transport error (compared by code) that way.
func rejected(err error) error {
	return fmt.Errorf("%w: %w", &gojsonrpc.Error{Code: codeRejected, Message: "rejected by transport"}, err)
}

// Close implements mcp.Connection.
func (c *callConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *callConn) SessionID() string {
	if c.call.Session != nil {
		return c.call.Session.ID
	}
	return ""
}

// wait returns the call's response, or nil if the call was cancelled or
// the SDK closed the connection without answering.
func (c *callConn) wait() *jsonrpc.Message {
	select {
	case r := <-c.respC:
		return r
	case <-c.ctx.Done():
	case <-c.closed:
	}
	select {
	case r := <-c.respC:
		return r
	default:
		return nil
	}
}

// sessionLevel reports the notifications that belong to no call.
func sessionLevel(method string) bool {
	return strings.HasSuffix(method, "/list_changed") || method == "notifications/resources/updated"
}
