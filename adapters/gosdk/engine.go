package gosdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Options configures an Engine. A nil *Options means defaults.
type Options struct {
	// Logger receives the engine's logs. Nil means slog.Default().
	Logger *slog.Logger

	// KeepPanics leaves panics in the server's handlers alone. By default
	// NewEngine adds middleware to the server that turns a panicking
	// handler into a -32603 error, since the SDK runs handlers on
	// goroutines no router middleware can protect.
	KeepPanics bool
}

// errEngineClosed refuses sessions opened after Close.
var errEngineClosed = errors.New("gosdk: engine closed")

// Engine implements httptransport.Engine on an *mcp.Server.
type Engine struct {
	server *mcp.Server
	logger *slog.Logger

	ctx    context.Context // ends the watcher and control connections
	cancel context.CancelFunc
	wg     sync.WaitGroup

	descMu   sync.Mutex
	desc     *httptransport.Description
	versions atomic.Pointer[[]string] // the versions the server serves, once it has said (describe.go)
	flight   *descFlight              // the description being computed (describe.go)
	descGen  uint64                   // counts tool changes, so a stale computation is not cached
	watcher  *mcp.ServerSession
	watchC   *controlConn // the watcher's connection

	hub *hub // the held 2026-07-28 listens (hub.go)

	caps capCache // what server/discover advertises (caps.go)

	ctlMu    sync.Mutex
	controls map[string]*controlConn // by session id
	closed   bool                    // Close has begun: no more sessions open (and no more wg.Add)

	states sync.Map // *httptransport.Session -> *decodedState, from OpenSession until the session ends here
}

var (
	_ httptransport.Engine         = (*Engine)(nil)
	_ httptransport.SessionReplier = (*Engine)(nil)
)

// NewEngine returns an Engine serving server. Call Close when done with it.
func NewEngine(server *mcp.Server, opts *Options) *Engine {
	e := &Engine{server: server, controls: make(map[string]*controlConn)}
	if opts != nil && opts.Logger != nil {
		e.logger = opts.Logger
	} else {
		e.logger = slog.Default()
	}
	if opts == nil || !opts.KeepPanics {
		server.AddReceivingMiddleware(recoverPanics(e.logger))
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.hub = newHub(e.watchResource)
	return e
}

// Close ends the engine's background connections, and the SDK sessions of
// the 2025-era sessions still open; call it once the handlers serving the
// engine have shut down (httptransport.Handler.Shutdown). Sessions opened
// after it get an error.
func (e *Engine) Close() error {
	e.ctlMu.Lock()
	e.closed = true
	e.ctlMu.Unlock()
	e.cancel()
	e.descMu.Lock()
	w := e.watcher
	e.watcher, e.watchC = nil, nil
	e.descMu.Unlock()
	if w != nil {
		_ = w.Close()
	}
	e.hub.pool.close()
	e.wg.Wait()
	return nil
}

// Serve implements httptransport.Engine: it runs the call on a connection of
// its own, so that whatever the handler sends reaches this call's stream.
// The methods that change a session's state run on the session's SDK
// connection instead (sessionMethod), while it is open. A 2026-07-28
// request for a method behind a capability the server does not advertise
// gets -32601 here (gateCapability).
func (e *Engine) Serve(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	m := call.Request
	if call.Modern() {
		if refusal := e.gateCapability(ctx, call); refusal != nil {
			return refusal, nil
		}
	}
	if call.Session != nil && sessionMethod(m.Method) {
		if ctl := e.control(call.Session.ID); ctl != nil && !ctl.isClosed() {
			resp, err := ctl.call(ctx, call)
			if err == nil && resp.Error == nil {
				ctl.noteApplied(e.saveState(call, ctl.session, resp))
			}
			if !errors.Is(err, errConnClosed) {
				return resp, err
			}
		}
	}
	state, err := e.callState(call)
	if err != nil {
		return nil, err
	}
	var listens *hub
	if m.Method == "subscriptions/listen" && call.Modern() {
		if !e.ensureWatcher() {
			return nil, errEngineClosed
		}
		listens = e.hub
	}
	conn := newCallConn(ctx, call, listens)
	ss, err := e.server.Connect(ctx, conn, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		return nil, fmt.Errorf("gosdk: connecting call: %w", err)
	}
	var resp *jsonrpc.Message
	if conn.acked != nil {
		select {
		case <-conn.acked:
			// The listen is in the hub, which the engine's watcher
			// feeds: the SDK's session for it ends now (its answer, once
			// its handler sees the end, goes nowhere), and the transport
			// holds the stream without this goroutine.
			_ = ss.Close()
			return nil, httptransport.ErrHold
		case resp = <-conn.respC:
		case <-ctx.Done():
		}
	} else {
		resp = conn.wait()
	}
	if resp != nil && resp.Error == nil && call.Session != nil {
		e.saveState(call, ss, resp)
	}
	_ = ss.Close()
	if resp == nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, errors.New("gosdk: connection closed without a response")
	}
	return resp, nil
}

// sessionMethod reports the methods that change what the session's
// long-lived SDK connection holds: its initialization (a 2024-11-05
// session is open before initialize), its log level and its resource
// subscriptions. Where that connection exists they run on it.
func sessionMethod(method string) bool {
	switch method {
	case "initialize", "logging/setLevel", "resources/subscribe", "resources/unsubscribe":
		return true
	}
	return false
}

// callState is the SDK session state a call starts from: none for
// 2026-07-28 (the SDK reads each request's _meta) and for initialize, the
// session's stored state for 2025-era sessions, and an initialized state
// at the call's version for stateless 2025-era calls.
func (e *Engine) callState(call *httptransport.Call) (*mcp.ServerSessionState, error) {
	if call.Modern() || call.Request.Method == "initialize" {
		return nil, nil
	}
	if call.Session != nil {
		if raw := call.Session.State(); len(raw) > 0 {
			return e.sessionState(call.Session, raw)
		}
	}
	return &mcp.ServerSessionState{
		InitializeParams:          &mcp.InitializeParams{ProtocolVersion: call.Version, Capabilities: &mcp.ClientCapabilities{}},
		InitializedParams:         &mcp.InitializedParams{},
		NegotiatedProtocolVersion: call.Version,
	}, nil
}

// sessionState decodes a session's stored state, once per change of it:
// each call gets its own copy of the decoded struct, whose pointers the
// SDK replaces rather than writes through. The decoded state is kept only
// in the entry OpenSession made, which goes when the session ends here: a
// call that outlives its session caches nothing.
func (e *Engine) sessionState(sess *httptransport.Session, raw []byte) (*mcp.ServerSessionState, error) {
	cur, open := e.states.Load(sess)
	if open {
		if c := cur.(*decodedState); c.raw != nil && bytes.Equal(c.raw, raw) {
			st := c.st
			return &st, nil
		}
	}
	c := &decodedState{raw: bytes.Clone(raw)}
	if err := json.Unmarshal(raw, &c.st); err != nil {
		return nil, fmt.Errorf("gosdk: decoding session state: %w", err)
	}
	if open {
		e.states.CompareAndSwap(sess, cur, c)
	}
	st := c.st
	return &st, nil
}

// decodedState is a session's state as stored and as decoded.
type decodedState struct {
	raw []byte
	st  mcp.ServerSessionState
}

// Notify implements httptransport.Engine.
func (e *Engine) Notify(ctx context.Context, sess *httptransport.Session, msg *jsonrpc.Message) {
	if sess == nil {
		return
	}
	if msg.Method == "notifications/initialized" {
		st := readState(sess)
		if st.InitializedParams != nil {
			return // a duplicate: the SDK would refuse it
		}
		st.InitializedParams = &mcp.InitializedParams{}
		st.set(sess)
		// On to the session's SDK connection, which runs the server's
		// InitializedHandler.
	}
	if ctl := e.control(sess.ID); ctl != nil {
		ctl.deliver(msg)
	}
}

// Reply implements httptransport.SessionReplier: the client's answer to a
// request the SDK sent outside any call (roots/list from an
// InitializedHandler, say) goes back to the session's SDK connection.
func (e *Engine) Reply(ctx context.Context, sess *httptransport.Session, msg *jsonrpc.Message) {
	if ctl := e.control(sess.ID); ctl != nil {
		ctl.deliver(msg)
	}
}

// OpenSession implements httptransport.Engine: a control connection that
// holds the session's resource subscriptions and carries the SDK's
// session-level notifications to out.
func (e *Engine) OpenSession(ctx context.Context, sess *httptransport.Session, out httptransport.Sender) error {
	var state *mcp.ServerSessionState
	if raw := sess.State(); len(raw) > 0 {
		state = new(mcp.ServerSessionState)
		if err := json.Unmarshal(raw, state); err != nil {
			return fmt.Errorf("gosdk: decoding session state: %w", err)
		}
	}
	// The session costs no goroutine of ours while it lives: its end (the
	// session's, the engine's, or the SDK giving up the connection) runs
	// what follows.
	var ending atomic.Bool
	var ctl *controlConn
	ctl = newControlConn(ctx, sess.ID, out, func() {
		// The connection also closes as the session or the engine ends
		// (its reads end then): only a close before that is the SDK's own.
		if !ending.Load() && ctx.Err() == nil && e.ctx.Err() == nil {
			// The SDK gave up on the session (its keepalive pings went
			// unanswered): the session's calls go on, each on its own
			// connection as before, but what the connection held (resource
			// subscriptions, session-level notifications) is gone.
			e.logger.Warn("gosdk: the SDK closed the session's connection", "session", logval.String(sess.ID))
			e.dropControl(sess.ID, ctl)
		}
	})
	ss, err := e.server.Connect(ctx, ctl, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		return fmt.Errorf("gosdk: connecting session %s: %w", sess.ID, err)
	}
	ctl.session = ss
	e.ctlMu.Lock()
	if e.closed {
		e.ctlMu.Unlock()
		_ = ss.Close()
		return errEngineClosed
	}
	ctl.follow(ctx, readState(sess))      // the subscriptions made on other instances
	e.states.Store(sess, &decodedState{}) // the session is open here (sessionState)
	e.controls[sess.ID] = ctl
	e.wg.Add(1) // under ctlMu: never concurrent with Close's Wait
	e.ctlMu.Unlock()
	var stopsMu sync.Mutex // end waits for both registrations below
	var stops [2]func() bool
	end := sync.OnceFunc(func() {
		defer e.wg.Done()
		stopsMu.Lock()
		stops[0]()
		stops[1]()
		stopsMu.Unlock()
		ending.Store(true)
		e.dropControl(sess.ID, ctl)
		// End the connection's reading first: the SDK then cancels the
		// handlers still running on it (one waiting for the client's
		// answer, say), whose end its Close waits for.
		_ = ctl.Close()
		_ = ss.Close()
		e.states.Delete(sess)
	})
	stopsMu.Lock()
	stops[0] = context.AfterFunc(ctx, end)
	stops[1] = context.AfterFunc(e.ctx, end)
	stopsMu.Unlock()
	return nil
}

func (e *Engine) dropControl(id string, ctl *controlConn) {
	e.ctlMu.Lock()
	defer e.ctlMu.Unlock()
	if e.controls[id] == ctl {
		delete(e.controls, id)
	}
}

func (e *Engine) control(id string) *controlConn {
	e.ctlMu.Lock()
	defer e.ctlMu.Unlock()
	return e.controls[id]
}
