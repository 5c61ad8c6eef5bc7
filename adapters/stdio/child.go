package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// owner takes what a child sends that belongs to no call: the engine for
// the shared child, a session for a session's own child. Its methods run
// on the child's reading goroutine and must not block.
type owner interface {
	// notify takes a notification other than progress: list changes,
	// resource updates, log messages.
	notify(c *child, msg *jsonrpc.Message)
	// request takes a request from the child other than ping, which
	// it must answer (child.answer) sooner or later.
	request(c *child, msg *jsonrpc.Message)
}

// child is one running child process as an MCP client sees it: the
// requests it has in flight under ids of its own (so that any number of
// calls share it), and the progress tokens it handed out.
type child struct {
	p     *proc
	cfg   *config
	owner owner

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]*pending
	tokens   map[string]*pending // by the token given to the child
	gone     error               // why the child is gone, once it is
	bgClosed bool                // waitAnswers has begun: no more answers

	done     chan struct{} // closed once the child is gone
	doneOnce sync.Once
	stopping atomic.Bool    // the child is being stopped on purpose (Close)
	bg       sync.WaitGroup // answers being written (answer)

	initResult json.RawMessage // the child's answer to initialize
	version    string          // the protocol version it negotiated
	caps       serverCaps      // what it advertised
}

// pending is a request of ours the child has not answered yet.
type pending struct {
	ch    chan *jsonrpc.Message // the answer, under the child's id
	call  *httptransport.Call   // the call it serves; nil for the engine's own
	token json.RawMessage       // the caller's progress token, if any
	box   *outbox               // the call's notifications and requests, in order

	mu     sync.Mutex
	routed map[string]jsonrpc.ID // child requests sent to this call: our id's key -> the child's id
	ended  bool                  // the call is over: no more requests go to it
}

// serverCaps is what the engine reads of the child's capabilities.
type serverCaps struct {
	Tools *struct {
		ListChanged bool `json:"listChanged"`
	} `json:"tools"`
	Prompts *struct {
		ListChanged bool `json:"listChanged"`
	} `json:"prompts"`
	Resources *struct {
		Subscribe   bool `json:"subscribe"`
		ListChanged bool `json:"listChanged"`
	} `json:"resources"`
}

// errChildGone fails calls in flight when the child ends.
var errChildGone = errors.New("the MCP server process ended while serving the call; it is being restarted")

// startChild starts the command and speaks to it; initialize is left to
// the caller.
func startChild(cmd Command, cfg *config, o owner) (*child, error) {
	c := &child{cfg: cfg, owner: o, pending: make(map[int64]*pending), tokens: make(map[string]*pending), done: make(chan struct{})}
	p, err := startProc(cmd, cfg, c.receive, func(err error) {
		if err == nil {
			err = errors.New("stdio: the child closed its stdout")
		}
		c.fail(err)
	})
	if err != nil {
		return nil, err
	}
	c.p = p
	go func() {
		select {
		case <-p.exited:
			c.fail(fmt.Errorf("stdio: the child exited: %v", p.waitErr))
		case <-c.done:
		}
	}()
	return c, nil
}

// fail marks the child gone and fails every request in flight.
func (c *child) fail(reason error) {
	c.doneOnce.Do(func() {
		c.mu.Lock()
		c.gone = reason
		pend := c.pending
		c.pending, c.tokens = map[int64]*pending{}, map[string]*pending{}
		c.mu.Unlock()
		close(c.done)
		for id, p := range pend {
			msg := errChildGone.Error()
			if c.stopping.Load() {
				msg = "the MCP server is shutting down"
			} else if errors.Is(reason, errLineTooLong) {
				msg = fmt.Sprintf("the MCP server process wrote a message over %d bytes and was stopped; it is being restarted", c.cfg.maxLine)
			}
			p.ch <- jsonrpc.NewError(jsonrpc.Int64ID(id), jsonrpc.Errorf(jsonrpc.CodeInternalError, msg))
		}
	})
}

// isGone reports whether the child has ended.
func (c *child) isGone() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// send writes msg to the child. A child that does not take a message
// within stdinTimeout is stuck (or the stream is now cut mid-message): it
// is killed, and restarted.
func (c *child) send(msg *jsonrpc.Message) error {
	msg.JSONRPC = jsonrpc.Version
	b, err := msg.Encode()
	if err != nil {
		return err
	}
	err = c.p.write(b, stdinTimeout)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		c.cfg.log.Error("stdio: the child stopped reading its stdin; killing it", "pid", c.p.pid())
		c.p.kill()
	}
	return err
}

// stdinTimeout bounds one write to a child's stdin.
const stdinTimeout = 30 * time.Second

// answer sends the answer to a request of the child's, on a goroutine of
// its own: it is called from the goroutine that reads the child's stdout,
// which must never wait for its stdin (a child blocked writing to us would
// never read it).
func (c *child) answer(id jsonrpc.ID, result json.RawMessage, rpcErr *jsonrpc.Error) {
	msg := jsonrpc.NewResponse(id, result)
	if rpcErr != nil {
		msg = jsonrpc.NewError(id, rpcErr)
	}
	c.mu.Lock()
	if c.bgClosed {
		c.mu.Unlock()
		return // the child is stopped: nothing can reach it
	}
	c.bg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.bg.Done()
		if err := c.send(msg); err != nil {
			c.cfg.log.Debug("stdio: answering the child failed", "error", logval.Err(err))
		}
	}()
}

// waitAnswers waits for the answers being written, once the child is
// stopped (their writes fail at once then), and refuses further ones.
func (c *child) waitAnswers() {
	c.mu.Lock()
	c.bgClosed = true
	c.mu.Unlock()
	c.bg.Wait()
}

// roundTrip sends a request to the child under an id of its own, with
// the progress token in params (if any) replaced by one of its own, and
// waits for the answer, which it returns under the child's id. call (nil
// for the engine's own requests) gets the call's progress notifications
// and, when it can take them, the child's requests while it waits. If ctx
// ends first, the child is sent notifications/cancelled.
func (c *child) roundTrip(ctx context.Context, method string, params json.RawMessage, call *httptransport.Call) (*jsonrpc.Message, *pending, error) {
	p := &pending{ch: make(chan *jsonrpc.Message, 1), call: call}
	if call != nil {
		p.box = newOutbox(call.Send)
	}
	c.mu.Lock()
	if c.gone != nil {
		c.mu.Unlock()
		return nil, nil, errChildGone
	}
	c.nextID++
	id := c.nextID
	if call != nil {
		tok, rewritten, err := swapProgressToken(params, "mcpmount-"+strconv.FormatInt(id, 10))
		if err != nil {
			c.mu.Unlock()
			return nil, nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: "+err.Error())
		}
		if tok != nil {
			p.token, params = tok, rewritten
			c.tokens["mcpmount-"+strconv.FormatInt(id, 10)] = p
		}
	}
	c.pending[id] = p
	c.mu.Unlock()
	req := &jsonrpc.Message{ID: jsonrpc.Int64ID(id), Method: method, Params: params}
	if err := c.send(req); err != nil {
		c.forget(id)
		return nil, nil, fmt.Errorf("stdio: sending %s: %w", method, err)
	}
	var replies <-chan *jsonrpc.Message
	if call != nil {
		replies = call.Replies()
	}
	defer c.abandonRouted(p)
	for {
		select {
		case resp := <-p.ch:
			return resp, p, nil
		case r := <-replies:
			c.forwardReply(p, r)
		case <-ctx.Done():
			if c.forget(id) {
				params, _ := json.Marshal(map[string]any{"requestId": id, "reason": "the client cancelled the request"})
				_ = c.send(jsonrpc.NewNotification("notifications/cancelled", params))
			}
			return nil, p, ctx.Err()
		}
	}
}

// forget drops a request given up on, and reports whether it was still
// in flight.
func (c *child) forget(id int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pending[id]
	delete(c.pending, id)
	if ok && p.token != nil {
		delete(c.tokens, "mcpmount-"+strconv.FormatInt(id, 10))
	}
	return ok
}

// receive handles one line from the child's stdout.
func (c *child) receive(line []byte) {
	msg, err := jsonrpc.Decode(line)
	if err != nil {
		c.cfg.log.Warn("stdio: the child wrote something that is not a JSON-RPC message", "line", logval.Bound(string(line), 200), "error", logval.Err(err))
		return
	}
	switch {
	case msg.IsResponse():
		c.resolve(msg)
	case msg.IsNotification():
		switch msg.Method {
		case "notifications/progress":
			c.progress(msg)
		case "notifications/cancelled":
			// The child gave up on a request of its own: the client's
			// answer, if it comes, is dropped.
		default:
			c.owner.notify(c, msg)
		}
	case msg.Method == "ping":
		c.answer(msg.ID, json.RawMessage("{}"), nil)
	default:
		c.owner.request(c, msg)
	}
}

// resolve hands an answer to the request that waits for it.
func (c *child) resolve(msg *jsonrpc.Message) {
	id, err := strconv.ParseInt(msg.ID.Raw(), 10, 64)
	c.mu.Lock()
	p, ok := c.pending[id]
	if ok {
		delete(c.pending, id)
		if p.token != nil {
			delete(c.tokens, "mcpmount-"+msg.ID.Raw())
		}
	}
	c.mu.Unlock()
	if err != nil || !ok {
		c.cfg.log.Debug("stdio: an answer from the child for no request waiting", "id", logval.Bound(msg.ID.Raw(), 40))
		return
	}
	p.ch <- msg
}

// progress routes a progress notification to its call by its token, under
// the token the call's client gave.
func (c *child) progress(msg *jsonrpc.Message) {
	var head struct {
		Token json.RawMessage `json:"progressToken"`
	}
	_ = json.Unmarshal(msg.Params, &head)
	var key string
	_ = json.Unmarshal(head.Token, &key)
	c.mu.Lock()
	p := c.tokens[key]
	c.mu.Unlock()
	if p == nil {
		c.cfg.log.Debug("stdio: progress from the child for no call waiting", "params", logval.Bound(string(msg.Params), 200))
		return
	}
	params, err := setMember(msg.Params, "progressToken", p.token)
	if err != nil {
		return
	}
	p.box.send(jsonrpc.NewNotification(msg.Method, params), nil)
}

// inFlight returns the calls in flight on the child that can take
// server-to-client requests.
func (c *child) inFlight() []*pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*pending
	for _, p := range c.pending {
		if p.call != nil && p.call.Replies() != nil {
			out = append(out, p)
		}
	}
	return out
}

// routeToCall sends the child's request to the call that p serves, under
// an id of the call's; the client's answer comes back through roundTrip's
// loop (forwardReply).
func (c *child) routeToCall(p *pending, req *jsonrpc.Message) {
	ours := jsonrpc.StringID("mcpmount-" + strconv.FormatInt(c.nextRouted(), 10))
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		c.answer(req.ID, nil, errCallEnded)
		return
	}
	if p.routed == nil {
		p.routed = make(map[string]jsonrpc.ID)
	}
	p.routed[ours.Key()] = req.ID
	p.mu.Unlock()
	out := &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: ours, Method: req.Method, Params: req.Params}
	p.box.send(out, func(err error) {
		p.mu.Lock()
		_, waiting := p.routed[ours.Key()]
		delete(p.routed, ours.Key())
		p.mu.Unlock()
		if waiting {
			c.answer(req.ID, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "the client could not be reached: "+err.Error()))
		}
	})
}

// abandonRouted answers, with an error, the child's requests sent on p's
// call that the client has not answered when the call ends: the transport
// has nowhere to take a later answer (the call's stream is gone), and the
// child would wait for it forever.
func (c *child) abandonRouted(p *pending) {
	p.mu.Lock()
	routed := p.routed
	p.routed, p.ended = nil, true
	p.mu.Unlock()
	for _, id := range routed {
		c.answer(id, nil, errCallEnded)
	}
}

// errCallEnded answers a child's request sent on a call that ended
// before the client answered it.
var errCallEnded = jsonrpc.Errorf(jsonrpc.CodeInternalError, "mcpmount: the call this request was sent with ended before the client answered")

// nextRouted numbers the child's requests sent to clients.
func (c *child) nextRouted() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return c.nextID
}

// forwardReply passes a client's answer to a routed request to the child,
// under the child's id.
func (c *child) forwardReply(p *pending, r *jsonrpc.Message) {
	p.mu.Lock()
	id, ok := p.routed[r.ID.Key()]
	delete(p.routed, r.ID.Key())
	p.mu.Unlock()
	if !ok {
		return
	}
	out := *r
	out.ID = id
	if err := c.send(&out); err != nil {
		c.cfg.log.Debug("stdio: passing an answer to the child failed", "error", logval.Err(err))
	}
}

// fireAndForget sends a request whose answer nobody waits for (a
// resource subscription made on behalf of many clients).
func (c *child) fireAndForget(method string, params json.RawMessage) {
	c.mu.Lock()
	if c.gone != nil {
		c.mu.Unlock()
		return
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = &pending{ch: make(chan *jsonrpc.Message, 1)}
	c.mu.Unlock()
	if err := c.send(&jsonrpc.Message{ID: jsonrpc.Int64ID(id), Method: method, Params: params}); err != nil {
		c.forget(id)
	}
}

// uriParams are the params of resources/subscribe and unsubscribe.
func uriParams(uri string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"uri": uri})
	return b
}
