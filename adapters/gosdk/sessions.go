package gosdk

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/ctxend"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// OpenSession implements httptransport.Engine: the session gets a link to
// an SDK session of its own, connected when the client needs it
// (sessionLink), and the engine's list changes (broadcast). A session
// whose state holds resource subscriptions, made on another instance,
// connects at once and subscribes here too, as does every session with a
// negative Options.SessionLinger.
func (e *Engine) OpenSession(ctx context.Context, sess *httptransport.Session, out httptransport.Sender) error {
	var st storedState
	if raw := sess.State(); len(raw) > 0 {
		if err := json.Unmarshal(raw, &st); err != nil {
			return fmt.Errorf("gosdk: decoding session state: %w", err)
		}
	}
	if !e.ensureWatcher() { // the list changes come through it
		return errEngineClosed
	}
	l := newSessionLink(e, ctx, sess, out)
	if e.linger < 0 || len(st.Subscriptions) > 0 {
		if _, err := l.acquire(); err != nil {
			return err
		}
		l.release() // it stays up: no linger, or subscriptions held
	}
	e.ctlMu.Lock()
	if e.closed {
		e.ctlMu.Unlock()
		l.end()
		return errEngineClosed
	}
	e.states.Store(sess, &decodedState{}) // the session is open here (sessionState)
	e.links[sess.ID] = l
	e.wg.Add(1) // under ctlMu: never concurrent with Close's Wait
	e.ctlMu.Unlock()
	// The session costs no goroutine of ours while it lives: its end, or
	// the engine's, runs what follows.
	ctxend.Either(ctx, e.ctx, func() {
		defer e.wg.Done()
		e.ctlMu.Lock()
		if e.links[sess.ID] == l {
			delete(e.links, sess.ID)
		}
		e.ctlMu.Unlock()
		l.end()
		e.states.Delete(sess)
	})
	return nil
}

// link returns the link of the session open here with id, or nil.
func (e *Engine) link(id string) *sessionLink {
	e.ctlMu.Lock()
	defer e.ctlMu.Unlock()
	return e.links[id]
}

// Notify implements httptransport.Engine: the notification goes to the
// session's SDK connection, connected for it, where the server's
// InitializedHandler, RootsListChangedHandler and
// ProgressNotificationHandler run.
func (e *Engine) Notify(ctx context.Context, sess *httptransport.Session, msg *jsonrpc.Message) {
	if sess == nil {
		return
	}
	initialized := msg.Method == "notifications/initialized"
	if initialized && readState(sess).InitializedParams != nil {
		return // a duplicate: the SDK would refuse it
	}
	l := e.link(sess.ID)
	if l == nil {
		return
	}
	// Connected before the state says initialized: the SDK then takes
	// the notification, and runs the InitializedHandler.
	ctl, err := l.acquire()
	if err != nil {
		e.log.Warn("gosdk: a client notification could not reach the SDK", "method", logval.String(msg.Method), "error", logval.Err(err))
		return
	}
	defer l.release()
	if initialized {
		st := readState(sess)
		st.InitializedParams = &mcp.InitializedParams{}
		st.set(sess)
	}
	ctl.deliver(msg)
}

// Reply implements httptransport.SessionReplier: the client's answer to a
// request the SDK sent outside any call (roots/list from an
// InitializedHandler, say) goes back to the session's SDK connection,
// which stays connected while it waits for it.
func (e *Engine) Reply(ctx context.Context, sess *httptransport.Session, msg *jsonrpc.Message) {
	if l := e.link(sess.ID); l != nil {
		if ctl := l.connected(); ctl != nil {
			ctl.deliver(msg)
		}
	}
}

// broadcast hands a list change the watcher saw to every session open
// here, as the SDK would to the sessions it holds: the sessions' own SDK
// connections drop theirs (controlConn.Write), and are not connected while
// idle.
func (e *Engine) broadcast(m *jsonrpc.Message) {
	e.ctlMu.Lock()
	links := slices.Collect(maps.Values(e.links))
	e.ctlMu.Unlock()
	for _, l := range links {
		_ = l.out.send(l.ctx, jsonrpc.NewNotification(m.Method, m.Params))
	}
}
