package gosdk

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
)

// DefaultSessionLinger is how long a session's SDK session stays connected
// after its last use (Options.SessionLinger).
const DefaultSessionLinger = 10 * time.Second

// sessionLink is an open 2025-era or 2024-11-05 session's way to its
// long-lived SDK session (controlConn), which costs a goroutine (the SDK's
// connection reader) while connected. The link connects it when the
// client sends the session something outside a call (a notification, an
// answer to the SDK's request) or subscribes to a resource, and closes it
// after linger without use, unless it holds resource subscriptions or
// waits for the client's answer to a request: an idle session costs no
// goroutine. Each connection starts from the session's stored state
// (state.go). List changes do not need it: the engine's watcher hands them
// to every open session (Engine.broadcast).
type sessionLink struct {
	e      *Engine
	ctx    context.Context // the session's
	sess   *httptransport.Session
	out    *outbox // the session's Sender, kept across connections
	linger time.Duration

	mu    sync.Mutex
	conn  *controlConn // the connection, or nil
	users int          // acquisitions not released yet
	quiet *time.Timer  // runs idle after linger without users
	ended bool
}

// newSessionLink returns the unconnected link of sess, opened with ctx,
// whose SDK messages go to out.
func newSessionLink(e *Engine, ctx context.Context, sess *httptransport.Session, out httptransport.Sender) *sessionLink {
	l := &sessionLink{e: e, ctx: ctx, sess: sess, out: newOutbox(ctx, out, e.outboxes), linger: e.linger}
	l.quiet = time.AfterFunc(time.Hour, l.idle)
	l.quiet.Stop()
	return l
}

// acquire returns the session's connection, connecting it first if need
// be; it stays connected at least until release.
func (l *sessionLink) acquire() (*controlConn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended {
		return nil, errSessionClosed
	}
	if l.conn == nil || l.conn.isClosed() {
		c, err := l.connectLocked()
		if err != nil {
			return nil, err
		}
		l.conn = c
	}
	l.users++
	l.quiet.Stop()
	return l.conn, nil
}

// release ends an acquisition; the last one starts the linger.
func (l *sessionLink) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.users--
	if l.users == 0 && !l.ended && l.linger >= 0 {
		l.quiet.Reset(l.linger)
	}
}

// connected returns the connection if there is one, without connecting.
func (l *sessionLink) connected() *controlConn {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil || l.conn.isClosed() {
		return nil
	}
	return l.conn
}

// connectLocked connects an SDK session from the session's stored state
// and brings it to the state's resource subscriptions.
func (l *sessionLink) connectLocked() (*controlConn, error) {
	st := readState(l.sess)
	var state *mcp.ServerSessionState
	if st.InitializeParams != nil {
		state = &st.ServerSessionState
	}
	var c *controlConn
	c = newControlConn(l.ctx, l.sess.ID, l.out, func() { l.closed(c) })
	ss, err := l.e.server.Connect(l.ctx, c, &mcp.ServerSessionOptions{State: state})
	if err != nil {
		return nil, fmt.Errorf("gosdk: connecting session %s: %w", l.sess.ID, err)
	}
	c.session = ss
	c.noteApplied(storedState{ServerSessionState: mcp.ServerSessionState{LogLevel: st.LogLevel}})
	c.follow(l.ctx, st) // the subscriptions, made here before or on another instance
	return c, nil
}

// idle closes the connection once nothing needs it: no user, no
// subscription held, no request of the SDK's waiting for the client.
func (l *sessionLink) idle() {
	l.mu.Lock()
	c := l.conn
	if c == nil || l.users > 0 || l.ended {
		l.mu.Unlock()
		return
	}
	if c.isClosed() {
		l.conn = nil
		l.mu.Unlock()
		c.shut() // the SDK's session is over too: let it go
		return
	}
	switch c.needed() {
	case needAnswer:
		l.quiet.Reset(l.linger) // look again later
		l.mu.Unlock()
		return
	case needSubscriptions:
		l.mu.Unlock() // an unsubscribe's release looks again
		return
	}
	l.conn = nil
	l.mu.Unlock()
	c.shut()
}

// closed runs when c closes: the SDK gave up on it (its keepalive pings
// went unanswered), or the link or the engine closed it. It takes no lock:
// the SDK may close c while the link connects it.
func (l *sessionLink) closed(c *controlConn) {
	if c.shutting.Load() || l.ctx.Err() != nil || l.e.ctx.Err() != nil {
		return
	}
	if c.needed() == needSubscriptions {
		// The session's resource updates stop until its subscriptions
		// change or the client next sends it something outside a call
		// (acquire connects it again).
		l.e.log.Warn("gosdk: the SDK closed the session's connection, and its resource subscriptions", "session", logval.String(l.sess.ID))
		return
	}
	l.e.log.Info("gosdk: the SDK closed the session's connection; it connects again when needed", "session", logval.String(l.sess.ID))
}

// end closes the link for good, as its session ends here.
func (l *sessionLink) end() {
	l.mu.Lock()
	l.ended = true
	l.quiet.Stop()
	c := l.conn
	l.conn = nil
	l.mu.Unlock()
	if c != nil {
		c.shut()
	}
}
