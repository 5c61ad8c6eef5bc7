package gosdk

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// errSessionClosed is returned for calls on a session that ended here, or
// whose SDK connection closed while they ran.
var errSessionClosed = errors.New("gosdk: session closed")

// errConnClosed is returned for a call the session's SDK connection never
// took, because it had closed: the call can run elsewhere.
var errConnClosed = errors.New("gosdk: the session's SDK connection is closed")

// controlConn is a 2025-era or 2024-11-05 session's SDK connection outside
// calls, connected while the session needs it (sessionLink): it holds
// resource subscriptions and the log level, runs the session's client
// notifications (the server's InitializedHandler among them), and carries
// the SDK's messages outside calls, requests included, to the session's
// standalone stream. The engine's watcher (describe.go) is one too.
type controlConn struct {
	ctx         context.Context
	id          string             // the session's
	session     *mcp.ServerSession // set once connected, before use
	out         *outbox            // to the session's Sender
	inbox       chan gojsonrpc.Message
	closed      chan struct{} // closed when the SDK closes the connection
	onClose     func()        // run once, when the connection closes; may be nil
	once        sync.Once
	shutting    atomic.Bool // shut has begun: the close is ours
	answerPings bool        // answer the SDK's pings here (the engine's own watcher has no client)
	// sink, if set, takes the messages at once instead of out: the
	// engine's watcher hands them to the hub, which does not block, and
	// whose coalescing bounds what waits (a queue of its own would drop
	// messages past outboxBytes).
	sink httptransport.Sender

	mu       sync.Mutex
	next     int64
	pending  map[int64]chan *jsonrpc.Message
	asked    map[string]bool // ids of the SDK's requests the client has not answered
	applied  applied         // the log level and subscriptions it holds (state.go)
	followMu sync.Mutex      // follow runs one at a time
}

// newControlConn returns the connection of session id, whose messages go to
// out; onClose, if not nil, runs once when the connection closes.
func newControlConn(ctx context.Context, id string, out *outbox, onClose func()) *controlConn {
	return &controlConn{
		ctx: ctx, id: id, out: out, onClose: onClose,
		asked:   make(map[string]bool),
		inbox:   make(chan gojsonrpc.Message, 8),
		closed:  make(chan struct{}),
		pending: make(map[int64]chan *jsonrpc.Message),
	}
}

// Connect implements mcp.Transport.
func (c *controlConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// Read implements mcp.Connection.
func (c *controlConn) Read(ctx context.Context) (gojsonrpc.Message, error) {
	select {
	case m := <-c.inbox:
		return m, nil
	case <-c.ctx.Done():
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements mcp.Connection: answers go to the calls that asked, the
// rest (resource updates, log messages and requests made outside any
// call) to the session's standalone stream. List changes are dropped: the
// watcher's reach every open session, connected or not
// (Engine.broadcast).
func (c *controlConn) Write(ctx context.Context, msg gojsonrpc.Message) error {
	if resp, ok := msg.(*gojsonrpc.Response); ok {
		id, _ := resp.ID.Raw().(int64)
		c.mu.Lock()
		ch := c.pending[id]
		delete(c.pending, id)
		c.mu.Unlock()
		if ch != nil {
			out, err := fromSDK(msg)
			if err != nil {
				return err
			}
			ch <- out
		}
		return nil
	}
	if req, ok := msg.(*gojsonrpc.Request); ok && c.answerPings && req.Method == "ping" && req.IsCall() {
		c.deliverSDK(&gojsonrpc.Response{ID: req.ID, Result: json.RawMessage("{}")})
		return nil
	}
	out, err := fromSDK(msg)
	if err != nil {
		return err
	}
	if c.sink != nil {
		return c.sink.Send(ctx, out)
	}
	if out.IsNotification() && strings.HasSuffix(out.Method, "/list_changed") {
		return nil
	}
	c.noteAsked(out)
	if err := c.out.send(ctx, out); err != nil {
		c.noteAnswered(out.ID)
		if out.IsRequest() {
			// That request fails (its handler gets the error); the
			// connection, and the session's subscriptions, go on.
			return rejected(err)
		}
		return err
	}
	return nil
}

// Close implements mcp.Connection. The SDK closes the connection when the
// session ends here, or on its own when its keepalive pings fail.
func (c *controlConn) Close() error {
	c.once.Do(func() {
		close(c.closed)
		if c.onClose != nil {
			c.onClose()
		}
	})
	return nil
}

// SessionID implements mcp.Connection.
func (c *controlConn) SessionID() string { return c.id }

// call runs a client's request on the connection and returns the SDK's
// answer under the client's id. If ctx ends first, the SDK is told to
// cancel.
func (c *controlConn) call(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	req, err := toSDKRequest(ctx, call.Request, call.Header)
	if err != nil {
		return nil, err
	}
	r, ok := req.(*gojsonrpc.Request)
	if !ok {
		return nil, errors.New("gosdk: not a request")
	}
	resp, err := c.roundTrip(ctx, r)
	if err != nil {
		return nil, err
	}
	resp.ID = call.Request.ID
	return resp, nil
}

// roundTrip gives r an id of the connection's, hands it to the SDK and
// waits for the answer.
func (c *controlConn) roundTrip(ctx context.Context, r *gojsonrpc.Request) (*jsonrpc.Message, error) {
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan *jsonrpc.Message, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	r.ID, _ = gojsonrpc.MakeID(float64(id))
	if c.isClosed() {
		c.forget(id, false)
		return nil, errConnClosed
	}
	select {
	case c.inbox <- r:
	case <-ctx.Done():
		c.forget(id, false)
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, errSessionClosed
	case <-c.closed:
		c.forget(id, false)
		return nil, errConnClosed
	}
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		c.forget(id, true)
		return nil, ctx.Err()
	case <-c.ctx.Done():
		return nil, errSessionClosed
	case <-c.closed:
		// The SDK refuses to write answers once closing: whatever the
		// handler returned is lost.
		select {
		case resp := <-ch:
			return resp, nil
		default:
			return nil, errSessionClosed
		}
	}
}

// forget drops a request given up on; if the SDK has it, it is told to
// cancel it (its handler may not have started, so the handler's own
// context may never learn of it).
func (c *controlConn) forget(id int64, started bool) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
	if !started {
		return
	}
	params, _ := json.Marshal(struct {
		RequestID int64  `json:"requestId"`
		Reason    string `json:"reason"`
	}{id, "request cancelled"})
	c.deliverSDK(&gojsonrpc.Request{Method: "notifications/cancelled", Params: params})
}

// isClosed reports whether the SDK has closed the connection.
func (c *controlConn) isClosed() bool {
	select {
	case <-c.closed:
		return true
	default:
		return false
	}
}

// deliver hands a client notification, or an answer to a request the SDK
// sent on this connection, to the session's SDK connection.
func (c *controlConn) deliver(msg *jsonrpc.Message) {
	if msg.IsResponse() {
		c.noteAnswered(msg.ID)
	}
	m, err := toSDK(msg)
	if err != nil {
		return
	}
	c.deliverSDK(m)
}

func (c *controlConn) deliverSDK(m gojsonrpc.Message) {
	select {
	case c.inbox <- m:
	case <-c.ctx.Done():
	case <-c.closed:
	}
}
