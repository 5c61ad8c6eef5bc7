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
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/fanout"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// Options configures an Engine. A nil *Options means defaults.
type Options struct {
	// Logger receives the engine's logs. Nil means slog.Default(). Each
	// kind of line (a failed capability check, a handler's panic, a
	// session's connection the SDK closed) is written at most 10 a
	// minute, the next one let through saying how many were
	// "suppressed"; errors and values from a request are quoted and cut.
	Logger *slog.Logger

	// KeepPanics leaves panics in the server's handlers alone. By default
	// NewEngine adds middleware to the server that turns a panicking
	// handler into a -32603 error, since the SDK runs handlers on
	// goroutines no router middleware can protect.
	KeepPanics bool

	// SessionLinger is how long a 2025-era or 2024-11-05 session's SDK
	// session (the *mcp.ServerSession outside calls, which costs a
	// goroutine) stays connected after the client last sent it something
	// outside a call; 0 means DefaultSessionLinger (10 s). It stays up
	// while it holds resource subscriptions or waits for the client's
	// answer to a request, and connects again, from the session's stored
	// state, when the client next needs it. Negative keeps every session's
	// connected for the session's life, as servers need that keep a
	// *mcp.ServerSession from a handler to send on it later, or reach idle
	// sessions through Server.Sessions.
	SessionLinger time.Duration
}

// errEngineClosed refuses sessions opened after Close.
var errEngineClosed = errors.New("gosdk: engine closed")

// Engine implements httptransport.Engine on an *mcp.Server.
type Engine struct {
	server *mcp.Server
	log    *logval.Logger

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

	hub      *hub                  // the held 2026-07-28 listens (hub.go)
	outboxes *fanout.Pool[*outbox] // delivers the 2025-era sessions' messages

	caps capCache // what server/discover advertises (caps.go)

	linger time.Duration // Options.SessionLinger, defaulted

	ctlMu  sync.Mutex
	links  map[string]*sessionLink // the sessions open here, by id
	closed bool                    // Close has begun: no more sessions open (and no more wg.Add)

	states sync.Map // *httptransport.Session -> *decodedState, from OpenSession until the session ends here
}

var (
	_ httptransport.Engine         = (*Engine)(nil)
	_ httptransport.SessionReplier = (*Engine)(nil)
)

// NewEngine returns an Engine serving server. Call Close when done with it.
func NewEngine(server *mcp.Server, opts *Options) *Engine {
	e := &Engine{server: server, links: make(map[string]*sessionLink), linger: DefaultSessionLinger}
	var base *slog.Logger
	if opts != nil {
		base = opts.Logger
	}
	e.log = logval.NewLogger(base)
	if opts != nil && opts.SessionLinger != 0 {
		e.linger = opts.SessionLinger
	}
	if opts == nil || !opts.KeepPanics {
		server.AddReceivingMiddleware(recoverPanics(e.log))
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	e.hub = newHub(e.watchResource)
	e.outboxes = fanout.New[*outbox](fanout.SessionWorkers, fanout.SessionStuck)
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
	e.hub.pool.Close()
	e.wg.Wait()
	return nil
}

// Serve implements httptransport.Engine: it runs the call on a connection of
// its own, so that whatever the handler sends reaches this call's stream.
// Resource subscriptions run on the session's SDK connection instead, and
// logging/setLevel too while it is connected (sessionCall). A 2026-07-28
// request for a method behind a capability the server does not advertise
// gets -32601 here (gateCapability).
func (e *Engine) Serve(ctx context.Context, call *httptransport.Call) (*jsonrpc.Message, error) {
	m := call.Request
	if call.Modern() {
		if refusal := e.gateCapability(ctx, call); refusal != nil {
			return refusal, nil
		}
	}
	if call.Session != nil {
		if resp, done, err := e.sessionCall(ctx, call); done {
			return resp, err
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

// sessionCall runs on the session's SDK connection the calls that change
// what it holds: resources/subscribe and resources/unsubscribe, connecting
// it if need be (the SDK sends resource updates only to the sessions it
// holds subscribed), and logging/setLevel if it is connected. done is
// false for the other calls, and when the connection closed without
// taking the call: those run on a connection of their own, and saveState
// records what they changed for the next connection to start from.
func (e *Engine) sessionCall(ctx context.Context, call *httptransport.Call) (resp *jsonrpc.Message, done bool, err error) {
	method := call.Request.Method
	if method != "resources/subscribe" && method != "resources/unsubscribe" && method != "logging/setLevel" {
		return nil, false, nil
	}
	l := e.link(call.Session.ID)
	if l == nil {
		return nil, false, nil
	}
	var ctl *controlConn
	if method == "logging/setLevel" {
		ctl = l.connected()
	} else if ctl, err = l.acquire(); err == nil {
		defer l.release()
	}
	if ctl == nil {
		return nil, false, nil
	}
	resp, err = ctl.call(ctx, call)
	if err == nil && resp.Error == nil {
		ctl.noteApplied(e.saveState(call, ctl.session, resp))
	}
	return resp, !errors.Is(err, errConnClosed), err
}

// sessionMethod reports the methods that change a session's stored state
// (saveState): its initialization, its log level and its resource
// subscriptions.
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
