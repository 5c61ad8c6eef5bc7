package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Engine implements httptransport.Engine on a stdio MCP server run as a
// child process. See the package doc for what goes where.
type Engine struct {
	cmd    Command
	cfg    config
	shared *supervisor
	desc   *httptransport.Description

	mu       sync.Mutex
	closed   bool
	sessions map[string]*session // 2025-era and 2024-11-05 sessions open here
	listens  map[*listen]struct{}
	subs     map[string]int // resource URI -> subscribers on the shared child
	wg       sync.WaitGroup // sessions' children being stopped

	children atomic.Int64 // sessions' own children running (ChildPerSession)
}

var (
	_ httptransport.Engine         = (*Engine)(nil)
	_ httptransport.SessionReplier = (*Engine)(nil)
)

// New starts the shared child, initializes it, and returns an Engine
// serving it; it fails if the first start fails (ctx bounds it, and so
// does Options.StartTimeout). Call Close when done with it.
func New(ctx context.Context, cmd Command, opts *Options) (*Engine, error) {
	if cmd.Path == "" {
		return nil, errors.New("stdio: no command to run")
	}
	e := &Engine{
		cmd: cmd, cfg: newConfig(opts),
		sessions: make(map[string]*session),
		listens:  make(map[*listen]struct{}),
		subs:     make(map[string]int),
	}
	e.shared = newSupervisor(&e.cfg, "shared", e.startShared)
	c, err := e.shared.get(ctx)
	if err != nil {
		e.shared.close()
		return nil, fmt.Errorf("stdio: starting %s: %w", logval.Bound(cmd.Path, 200), err)
	}
	e.desc = &httptransport.Description{Versions: servedVersions(c.version)}
	return e, nil
}

// startShared launches the shared child and subscribes it again to the
// resources that clients hold subscriptions to.
func (e *Engine) startShared(ctx context.Context) (*child, error) {
	c, err := launch(ctx, e.cmd, &e.cfg, e, sharedInitParams())
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	uris := make([]string, 0, len(e.subs))
	for uri := range e.subs {
		uris = append(uris, uri)
	}
	e.mu.Unlock()
	for _, uri := range uris {
		c.fireAndForget("resources/subscribe", uriParams(uri))
	}
	return c, nil
}

// servedVersions are the versions the engine serves over HTTP with a
// child that negotiated v: 2026-07-28, by translation (modern.go), and
// the initialize-era versions up to v.
func servedVersions(v string) []string {
	out := []string{httptransport.Version20260728}
	for _, cv := range slices.Backward(childVersions) {
		if cv <= v {
			out = append(out, cv)
		}
	}
	return out
}

// Pid returns the process id of the shared child, or 0 while it is not
// running.
func (e *Engine) Pid() int {
	if c := e.shared.current(); c != nil {
		return c.p.pid()
	}
	return 0
}

// Close stops every child (stdin closed, then SIGTERM, then SIGKILL after
// Options.StopTimeout each) and waits for them. Call it once the handlers
// serving the engine have shut down (httptransport.Handler.Shutdown).
func (e *Engine) Close() error {
	e.mu.Lock()
	e.closed = true
	sessions := e.sessions
	e.sessions = map[string]*session{}
	e.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(s.close)
	}
	wg.Go(e.shared.close)
	wg.Wait()
	e.wg.Wait()
	return nil
}

// Describe implements httptransport.Engine: the versions served, fixed at
// New.
func (e *Engine) Describe(context.Context) *httptransport.Description { return e.desc }

// Serve implements httptransport.Engine.
func (e *Engine) Serve(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	if call.Modern() {
		return e.serveModern(ctx, call)
	}
	if call.Session != nil && e.cfg.perSession {
		return e.serveOwnChild(ctx, call)
	}
	m := call.Request
	switch m.Method {
	case "initialize":
		return e.initializeShared(ctx, call)
	case "ping":
		return jsonrpc.NewResponse(m.ID, json.RawMessage("{}")), nil
	case "logging/setLevel":
		// The shared child's log messages belong to no client and are
		// not passed on: there is no level to set.
		return jsonrpc.NewResponse(m.ID, json.RawMessage("{}")), nil
	case "resources/subscribe", "resources/unsubscribe":
		return e.subscribeSession(ctx, call)
	}
	if hiddenMethod(m.Method) {
		return nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found: "+m.Method+" (the tasks capability is not offered)")
	}
	return e.forward(ctx, e.shared, call, m.Params)
}

// hiddenMethod reports the methods of a capability the shared child has
// but clients are not offered (sharedCaps): tasks, which every client
// could list and cancel.
func hiddenMethod(method string) bool {
	return strings.HasPrefix(method, "tasks/")
}

// forward runs the call's request on sup's child and returns the answer
// under the call's id, once the call's notifications are out.
func (e *Engine) forward(ctx context.Context, sup *supervisor, call *httptransport.Call, params json.RawMessage) (*jsonrpc.Message, error) {
	c, err := sup.get(ctx)
	if err != nil {
		return nil, err
	}
	resp, p, err := c.roundTrip(ctx, call.Request.Method, params, call)
	if err != nil {
		if errors.Is(err, errChildGone) {
			return nil, jsonrpc.Errorf(jsonrpc.CodeInternalError, err.Error())
		}
		return nil, err
	}
	p.box.flush(ctx)
	out := *resp
	out.ID = call.Request.ID
	return &out, nil
}

// initializeShared answers a session's initialize from the shared
// child's: its capabilities, less what a shared child cannot give one
// client (sharedCaps), at the version the client asked for if the child
// speaks it or a newer one, else at the child's.
func (e *Engine) initializeShared(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	c, err := e.shared.get(ctx)
	if err != nil {
		return nil, err
	}
	var req struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(call.Request.Params, &req)
	version := c.version
	if slices.Contains(childVersions, req.ProtocolVersion) && req.ProtocolVersion <= c.version {
		version = req.ProtocolVersion
	}
	res, err := object(c.initResult)
	if err != nil {
		return nil, fmt.Errorf("stdio: the child's initialize result: %w", err)
	}
	res["protocolVersion"], _ = json.Marshal(version)
	if res["capabilities"], err = sharedCaps(res["capabilities"]); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return jsonrpc.NewResponse(call.Request.ID, raw), nil
}

// sharedCaps is a shared child's capabilities as one client gets them:
// without logging (the child's log messages belong to no client, and are
// dropped) and without tasks (a task would be visible to every client).
func sharedCaps(raw json.RawMessage) (json.RawMessage, error) {
	caps, err := object(raw)
	if err != nil {
		return nil, fmt.Errorf("stdio: the child's capabilities: %w", err)
	}
	delete(caps, "logging")
	delete(caps, "tasks")
	return json.Marshal(caps)
}

// Notify implements httptransport.Engine: a session's notifications go to
// its own child (ChildPerSession), but for notifications/initialized,
// which the engine sent the child itself; the shared child gets none.
func (e *Engine) Notify(ctx context.Context, sess *httptransport.Session, msg *jsonrpc.Message) {
	if sess == nil || !e.cfg.perSession || msg.Method == "notifications/initialized" {
		return
	}
	s := e.session(sess.ID)
	if s == nil {
		return
	}
	s.mu.Lock()
	sup := s.sup
	s.mu.Unlock()
	if sup != nil {
		if c := sup.current(); c != nil {
			out := *msg
			_ = c.send(&out)
		}
	}
}

// notify implements owner for the shared child: list changes and resource
// updates go to the sessions and listens that take them; log messages and
// anything else, which belong to no client, are dropped.
func (e *Engine) notify(_ *child, msg *jsonrpc.Message) {
	switch msg.Method {
	case "notifications/tools/list_changed", "notifications/prompts/list_changed", "notifications/resources/list_changed":
		e.broadcast(msg, "")
	case "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(msg.Params, &p) == nil && p.URI != "" {
			e.broadcast(msg, p.URI)
		}
	default:
		e.cfg.log.Debug("stdio: a notification of the shared child for no client, dropped", "method", logval.Bound(msg.Method, 80))
	}
}

// request implements owner for the shared child: its requests cannot be
// tied to a client, and are refused (the child was told the client has
// no capabilities, so a well-behaved one sends none).
func (e *Engine) request(c *child, msg *jsonrpc.Message) {
	c.answer(msg.ID, nil, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound,
		"mcpmount: "+msg.Method+" is not available: this server process is shared by every client (see ChildPerSession)"))
}
