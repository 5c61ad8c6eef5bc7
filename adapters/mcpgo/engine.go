package mcpgo

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Options configures an Engine. A nil *Options means defaults.
type Options struct {
	// Logger receives the engine's logs. Nil means slog.Default().
	Logger *slog.Logger
}

// errEngineClosed refuses sessions and listens opened after Close.
var errEngineClosed = errors.New("mcpgo: engine closed")

// Engine implements httptransport.Engine on a mark3labs/mcp-go
// *server.MCPServer: mcp-go answers the JSON-RPC, the transport owns the
// HTTP wire.
type Engine struct {
	server   *server.MCPServer
	logger   *slog.Logger
	tag      string // makes this engine's call session ids unique
	seq      atomic.Uint64
	versions []string // what the engine serves, newest first

	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // listens and sessions open here
	work   *workers

	mu      sync.Mutex
	closed  bool
	longs   map[string]*session   // 2025-era sessions open here, by id
	listens map[*session]struct{} // held 2026-07-28 listens

	descMu  sync.Mutex
	desc    *httptransport.Description
	descGen uint64
	watcher *session
}

var (
	_ httptransport.Engine         = (*Engine)(nil)
	_ httptransport.SessionReplier = (*Engine)(nil)
)

// NewEngine returns an Engine serving srv. It adds middleware to srv that
// fills the Header of tool, prompt and resource requests (see Header) and
// lets their handlers answer with a JSON-RPC error of their choosing (an
// error wrapping a *jsonrpc.Error; mcp-go alone makes every error -32603),
// and
// registers one session of its own with srv, which sees tool-list changes
// for Describe (srv's session hooks see it too). Call Close when done.
func NewEngine(srv *server.MCPServer, opts *Options) *Engine {
	e := &Engine{
		server:   srv,
		logger:   slog.Default(),
		tag:      "mcpmount-" + rand.Text()[:10],
		versions: slices.Clone(mcp.ValidProtocolVersions),
		longs:    make(map[string]*session),
		listens:  make(map[*session]struct{}),
	}
	if opts != nil && opts.Logger != nil {
		e.logger = opts.Logger
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.work = newWorkers(e.ctx)
	installMiddleware(srv)
	e.startWatcher()
	return e
}

// Close unregisters the engine's sessions from the server and waits for the
// listens it holds to end; call it once the handlers serving the engine
// have shut down (httptransport.Handler.Shutdown). Sessions and listens
// opened after it get an error.
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	e.cancel()
	e.wg.Wait()
	e.work.wait()
	e.descMu.Lock()
	w := e.watcher
	e.watcher = nil
	e.descMu.Unlock()
	if w != nil {
		e.server.UnregisterSession(context.Background(), w.id)
		w.pipe.close()
	}
	return nil
}

// nextID returns a session id no other call of this engine's server has.
func (e *Engine) nextID(base string) string {
	if base == "" {
		base = e.tag
	}
	return base + "#" + strconv.FormatUint(e.seq.Add(1), 10)
}

// Serve implements httptransport.Engine: mcp-go handles the call with a
// ClientSession of the call's own, whose notifications go to the call's
// stream and nowhere else, all of them, in order, before the answer.
func (e *Engine) Serve(ctx context.Context, call *httptransport.Call) (m *jsonrpc.Message, err error) {
	if call.Modern() && call.Request.Method == string(mcp.MethodSubscriptionsListen) {
		raw, s, err := e.prepare(ctx, call)
		if err != nil {
			return nil, err
		}
		return e.serveListen(ctx, call, s, raw)
	}
	if call.Session == nil {
		return e.serve(ctx, call)
	}
	// The transport runs a session's calls on goroutines of their own
	// (see workers).
	e.work.run(func() { m, err = e.serve(ctx, call) })
	return m, err
}

// prepare encodes the call's request for mcp-go and builds its session.
func (e *Engine) prepare(ctx context.Context, call *httptransport.Call) ([]byte, *session, error) {
	raw, err := call.Request.Encode()
	if err != nil {
		return nil, nil, fmt.Errorf("mcpgo: encoding the request: %w", err)
	}
	s, err := e.callSession(ctx, call)
	if err != nil {
		return nil, nil, err
	}
	return raw, s, nil
}

// serve has mcp-go handle a call other than a listen.
func (e *Engine) serve(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	raw, s, err := e.prepare(ctx, call)
	if err != nil {
		return nil, err
	}
	defer s.pipe.close() // a panic in the handler, recovered by the transport
	hctx := e.handlerContext(ctx, s, call)
	resp := e.server.HandleMessage(hctx, raw)
	s.pipe.close() // every notification out before the answer
	if call.Session != nil {
		e.saveChanges(call.Session, s)
	}
	m, err := fromMCP(resp, call.Request.ID)
	if err != nil || m.Error == nil {
		return m, err
	}
	if m.Error.Code == jsonrpc.CodeInternalError {
		if je := hctx.Value(callKey{}).(*callInfo).handlerError(); je != nil {
			return jsonrpc.NewError(call.Request.ID, je), nil
		}
	}
	if call.Request.Method == string(mcp.MethodResourcesRead) && len(m.Error.Data) == 0 &&
		(m.Error.Code == jsonrpc.CodeInvalidParams || m.Error.Code == mcp.RESOURCE_NOT_FOUND) {
		m.Error.Data = notFoundData(call.Request.Params)
	}
	return m, nil
}

// notFoundData is the data of a resources/read error for an unknown
// resource, which should name the URI
// (https://modelcontextprotocol.io/specification/draft/server/resources#error-handling);
// mcp-go's error has none.
func notFoundData(params json.RawMessage) json.RawMessage {
	var p struct {
		URI string `json:"uri"`
	}
	if json.Unmarshal(params, &p) != nil || p.URI == "" {
		return nil
	}
	data, err := json.Marshal(map[string]string{"uri": p.URI})
	if err != nil {
		return nil
	}
	return data
}

// callSession builds the session a call runs with: its session's state for
// 2025-era session calls, an initialized one at the call's version for
// stateless ones, a bare one for 2026-07-28 (mcp-go reads the request's
// _meta).
func (e *Engine) callSession(ctx context.Context, call *httptransport.Call) (*session, error) {
	s := &session{kind: kindCall}
	base := ""
	if call.Session != nil {
		base = call.Session.ID
		s.long = e.long(call.Session.ID)
		st, err := callState(call.Session, s.long)
		if err != nil {
			return nil, err
		}
		s.st = st
	} else if !call.Modern() {
		s.st.ProtocolVersion = call.Version
	}
	s.id = e.nextID(base)
	s.initialized.Store(call.Request.Method != string(mcp.MethodInitialize))
	s.call = call
	s.pipe = newPipe(func(n mcp.JSONRPCNotification) {
		m, err := notificationFromMCP(n)
		if err != nil {
			e.logger.Warn("mcpgo: dropping a notification", "error", err)
			return
		}
		_ = call.Send(ctx, m) // fails only once the call is over or cancelled
	})
	return s, nil
}

// handlerContext is the context mcp-go handles a request in.
func (e *Engine) handlerContext(ctx context.Context, s *session, call *httptransport.Call) context.Context {
	ctx = e.server.WithContext(ctx, s)
	ctx = server.WithSupportedProtocolVersions(ctx, e.versions)
	ci := &callInfo{}
	if call != nil {
		ci.header = call.Header
		if call.Session != nil {
			ci.sessionID = call.Session.ID
		}
	} else if s.long != nil || s.kind == kindLong {
		ci.sessionID = s.owner().sessionID()
	}
	return context.WithValue(ctx, callKey{}, ci)
}

// saveChanges applies what a call changed to its session's stored state,
// as stored now: concurrent calls of one session each add their own.
func (e *Engine) saveChanges(sess *httptransport.Session, s *session) {
	changes := s.takeChanges()
	if len(changes) == 0 {
		return
	}
	st, err := loadState(sess)
	if err != nil {
		e.logger.Warn("mcpgo: replacing an unreadable session state", "error", err)
	}
	for _, f := range changes {
		f(&st)
	}
	saveState(sess, &st)
}

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
			e.logger.Warn("mcpgo: notification for a session with an unreadable state", "error", err)
			return
		}
		s = &session{id: e.nextID(sess.ID), kind: kindCall, st: st,
			pipe: newPipe(func(mcp.JSONRPCNotification) {})} // no stream to send on
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
		e.logger.Warn("mcpgo: dropping a message for a client that is not taking them", "session", truncate(sess.ID), "method", truncate(m.Method))
	})
	s.pipe = newPipe(func(n mcp.JSONRPCNotification) {
		m, err := notificationFromMCP(n)
		if err != nil {
			e.logger.Warn("mcpgo: dropping a notification", "error", err)
			return
		}
		box.send(m)
	})
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
		return fmt.Errorf("mcpgo: registering session %q: %w", truncate(sess.ID), err)
	}
	go func() {
		defer e.wg.Done()
		select {
		case <-ctx.Done():
		case <-e.ctx.Done():
		}
		if e.dropLong(s) {
			e.server.UnregisterSession(context.WithoutCancel(ctx), sess.ID)
		}
		s.pipe.close()
		box.wait()
	}()
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
