package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// adoptTimeout is how long a session's own child, started by initialize,
// waits for the transport to open the session (OpenSession) before it is
// stopped: the transport may fail to store the session after initialize.
const adoptTimeout = 30 * time.Second

// session is a 2025-era or 2024-11-05 session open here: where its
// standalone stream is, the resources it subscribed to on the shared
// child, and, with ChildPerSession, its own child.
type session struct {
	e  *Engine
	id string

	mu      sync.Mutex
	box     *outbox // to the session's standalone stream, once open
	subs    map[string]bool
	sup     *supervisor // the session's own child (ChildPerSession)
	reap    *time.Timer // stops sup if the session never opens
	opened  bool
	gen     int         // counts OpenSession calls (a session may open again)
	unwatch func() bool // stops the watch of the latest OpenSession's ctx
	next    int64
	routed  map[string]routedReq // requests of the child's sent to the stream, by our id's key
	early   []earlyReq           // requests of the child's before the session opened
}

// earlyReq is a request a session's child sent before the session was
// open here (roots/list right after initialization, say): it goes to the
// session's stream once it opens.
type earlyReq struct {
	c   *child
	msg *jsonrpc.Message
}

// maxEarly bounds the requests held for a session not open yet.
const maxEarly = 16

// routedReq is a request of a child's sent to a client.
type routedReq struct {
	c  *child
	id jsonrpc.ID
}

// session returns the session open here with this id, or nil.
func (e *Engine) session(id string) *session {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sessions[id]
}

// sessionFor returns the session with this id, made if need be; nil once
// the engine is closed.
func (e *Engine) sessionFor(id string) *session {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	s := e.sessions[id]
	if s == nil {
		s = &session{e: e, id: id, subs: make(map[string]bool), routed: make(map[string]routedReq)}
		e.sessions[id] = s
	}
	return s
}

// OpenSession implements httptransport.Engine: the session's messages
// that belong to no call go to out until ctx ends, when the session's
// subscriptions, and its own child, go.
func (e *Engine) OpenSession(ctx context.Context, sess *httptransport.Session, out httptransport.Sender) error {
	s := e.sessionFor(sess.ID)
	if s == nil {
		return errClosed
	}
	s.mu.Lock()
	s.box, s.opened = newOutbox(out.Send), true
	s.gen++
	gen := s.gen
	if s.reap != nil {
		s.reap.Stop()
	}
	early := s.early
	s.early = nil
	if e.cfg.perSession && s.sup == nil {
		if params := storedInit(sess); params != nil {
			// Opened here after another instance (or an earlier copy)
			// initialized it: a child of its own, told the same.
			if err := s.startChildLocked(params); err != nil {
				s.mu.Unlock()
				return err
			}
		}
	}
	s.mu.Unlock()
	for _, r := range early {
		s.request(r.c, r.msg)
	}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return errClosed
	}
	e.wg.Add(1)
	e.mu.Unlock()
	unwatch := context.AfterFunc(ctx, func() {
		defer e.wg.Done()
		s.mu.Lock()
		current := s.gen == gen
		s.mu.Unlock()
		if current { // not opened again meanwhile, with a new ctx
			e.dropSession(s)
		}
	})
	s.mu.Lock()
	s.unwatch = unwatch
	s.mu.Unlock()
	return nil
}

// dropSession ends a session here: its subscriptions on the shared child
// and its own child go.
func (e *Engine) dropSession(s *session) {
	e.mu.Lock()
	if e.sessions[s.id] == s {
		delete(e.sessions, s.id)
	}
	e.mu.Unlock()
	s.mu.Lock()
	uris := s.subs
	s.subs = map[string]bool{}
	s.mu.Unlock()
	for uri := range uris {
		e.unsubscribe(uri)
	}
	s.close()
}

// close stops the session's own child, if it has one.
func (s *session) close() {
	s.mu.Lock()
	sup := s.sup
	if s.reap != nil {
		s.reap.Stop()
	}
	unwatch := s.unwatch
	s.unwatch, s.sup = nil, nil
	s.mu.Unlock()
	if unwatch != nil && unwatch() {
		s.e.wg.Done() // its watch will not run now: Close ends the session
	}
	if sup != nil {
		sup.close()
		s.e.children.Add(-1)
	}
}

// storedInit is the initialize params kept in the session's state.
func storedInit(sess *httptransport.Session) json.RawMessage {
	var st struct {
		Initialize json.RawMessage `json:"initialize"`
	}
	if json.Unmarshal(sess.State(), &st) != nil {
		return nil
	}
	return st.Initialize
}

// startChildLocked starts the session's own child, initialized with the
// client's initialize params, unless Options.MaxSessionChildren are
// running. The caller holds s.mu.
func (s *session) startChildLocked(params json.RawMessage) error {
	e := s.e
	if n := e.children.Add(1); n > int64(e.cfg.maxChildren) {
		e.children.Add(-1)
		e.cfg.log.Warn("stdio: a session was refused a child of its own: MaxSessionChildren are running", "max", e.cfg.maxChildren)
		return errTooManyChildren
	}
	s.sup = newSupervisor(&e.cfg, s.id, func(ctx context.Context) (*child, error) {
		return launch(ctx, e.cmd, &e.cfg, s, params)
	})
	return nil
}

// errTooManyChildren refuses a session a child of its own past
// Options.MaxSessionChildren.
var errTooManyChildren = jsonrpc.Errorf(jsonrpc.CodeServerError, "mcpmount: too many sessions with a server process of their own; try again later")

// serveOwnChild serves a call of a session with a child of its own
// (ChildPerSession); initialize starts the child.
func (e *Engine) serveOwnChild(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	m := call.Request
	s := e.sessionFor(call.Session.ID)
	if s == nil {
		return nil, errClosed
	}
	s.mu.Lock()
	if s.sup == nil {
		params := storedInit(call.Session)
		if m.Method == "initialize" {
			params = m.Params
		}
		if params == nil {
			s.mu.Unlock()
			return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "the session is not initialized")
		}
		if err := s.startChildLocked(params); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if !s.opened {
			s.reap = time.AfterFunc(adoptTimeout, func() {
				s.mu.Lock()
				opened := s.opened
				s.mu.Unlock()
				if !opened {
					e.dropSession(s)
				}
			})
		}
	}
	sup := s.sup
	s.mu.Unlock()
	switch m.Method {
	case "initialize":
		c, err := sup.get(ctx)
		if err != nil {
			e.dropSession(s) // no session: no child restarted for it
			return nil, err
		}
		st, _ := json.Marshal(map[string]json.RawMessage{"initialize": m.Params})
		call.Session.SetState(st)
		return jsonrpc.NewResponse(m.ID, c.initResult), nil
	case "ping":
		return jsonrpc.NewResponse(m.ID, json.RawMessage("{}")), nil
	}
	return e.forward(ctx, sup, call, m.Params)
}

// notify implements owner for a session's own child: what belongs to no
// call goes to the session's standalone stream.
func (s *session) notify(_ *child, msg *jsonrpc.Message) {
	s.mu.Lock()
	box := s.box
	s.mu.Unlock()
	if box != nil {
		out := *msg
		box.send(&out, nil)
	}
}

// request implements owner for a session's own child: the request goes
// to the session's one call in flight that can take it; with none, or
// more than one, to the session's standalone stream, whose answer comes
// back through Reply. Requests that come before the session is open
// here wait for it (maxEarly of them).
func (s *session) request(c *child, msg *jsonrpc.Message) {
	if calls := c.inFlight(); len(calls) == 1 {
		c.routeToCall(calls[0], msg)
		return
	}
	s.mu.Lock()
	if !s.opened && len(s.early) < maxEarly {
		s.early = append(s.early, earlyReq{c, msg})
		s.mu.Unlock()
		return
	}
	box := s.box
	s.next++
	ours := jsonrpc.StringID("mcpmount-s" + strconv.FormatInt(s.next, 10))
	if box != nil {
		s.routed[ours.Key()] = routedReq{c: c, id: msg.ID}
	}
	s.mu.Unlock()
	if box == nil {
		c.answer(msg.ID, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "mcpmount: the session has no stream open for "+msg.Method))
		return
	}
	out := &jsonrpc.Message{JSONRPC: jsonrpc.Version, ID: ours, Method: msg.Method, Params: msg.Params}
	box.send(out, func(err error) {
		s.mu.Lock()
		delete(s.routed, ours.Key())
		s.mu.Unlock()
		c.answer(msg.ID, nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, "mcpmount: the client could not be reached: "+err.Error()))
	})
}

// Reply implements httptransport.SessionReplier: a client's answer to a
// request of its session's child sent on the standalone stream goes back
// to the child.
func (e *Engine) Reply(_ context.Context, sess *httptransport.Session, msg *jsonrpc.Message) {
	s := e.session(sess.ID)
	if s == nil {
		return
	}
	s.mu.Lock()
	r, ok := s.routed[msg.ID.Key()]
	delete(s.routed, msg.ID.Key())
	s.mu.Unlock()
	if !ok {
		return
	}
	out := *msg
	out.ID = r.id
	_ = r.c.send(&out)
}

// subscribeSession holds a 2025-era session's resource subscription on
// the shared child, which is subscribed once per resource for every
// client.
func (e *Engine) subscribeSession(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	m := call.Request
	if call.Session == nil {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, m.Method+" needs a session")
	}
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(m.Params, &p) != nil || p.URI == "" {
		return nil, jsonrpc.Errorf(jsonrpc.CodeInvalidParams, "invalid params: uri is required")
	}
	s := e.sessionFor(call.Session.ID)
	if s == nil {
		return nil, errClosed
	}
	s.mu.Lock()
	had := s.subs[p.URI]
	if m.Method == "resources/subscribe" {
		s.subs[p.URI] = true
	} else {
		delete(s.subs, p.URI)
	}
	s.mu.Unlock()
	switch {
	case m.Method == "resources/subscribe" && !had:
		if err := e.subscribe(ctx, p.URI); err != nil {
			s.mu.Lock()
			delete(s.subs, p.URI)
			s.mu.Unlock()
			return nil, err
		}
	case m.Method == "resources/unsubscribe" && had:
		e.unsubscribe(p.URI)
	}
	return jsonrpc.NewResponse(m.ID, json.RawMessage("{}")), nil
}

// subscribe counts one more subscriber to uri; the first one subscribes
// the shared child, whose answer it returns.
func (e *Engine) subscribe(ctx context.Context, uri string) error {
	e.mu.Lock()
	e.subs[uri]++
	first := e.subs[uri] == 1
	e.mu.Unlock()
	if !first {
		return nil
	}
	c, err := e.shared.get(ctx)
	if err == nil {
		var resp *jsonrpc.Message
		resp, _, err = c.roundTrip(ctx, "resources/subscribe", uriParams(uri), nil)
		if err == nil && resp.Error != nil {
			err = resp.Error
		}
	}
	if err != nil {
		e.unsubscribeCount(uri)
		if errors.Is(err, errChildGone) {
			return jsonrpc.Errorf(jsonrpc.CodeInternalError, err.Error())
		}
		return err
	}
	return nil
}

// unsubscribe counts one subscriber to uri less; the last one
// unsubscribes the shared child.
func (e *Engine) unsubscribe(uri string) {
	if e.unsubscribeCount(uri) {
		if c := e.shared.current(); c != nil {
			c.fireAndForget("resources/unsubscribe", uriParams(uri))
		}
	}
}

func (e *Engine) unsubscribeCount(uri string) (last bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.subs[uri] <= 1 {
		delete(e.subs, uri)
		return true
	}
	e.subs[uri]--
	return false
}
