package gosdk

import (
	"context"
	"encoding/json"
	"slices"

	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// storedState is what the engine keeps in a session's state
// (httptransport.Session.State): the SDK's state of the session, and its
// resource subscriptions, which the SDK's state does not hold. With a
// shared SessionStore every instance serving the session reads it, so a
// log level set or a resource subscribed through one instance holds on all
// (SessionStateChanged).
type storedState struct {
	mcp.ServerSessionState
	Subscriptions []string `json:"subscriptions,omitempty"`
}

// readState decodes sess's state; a state that does not decode reads as
// empty, as a new session's.
func readState(sess *httptransport.Session) storedState {
	var st storedState
	if raw := sess.State(); len(raw) > 0 {
		_ = json.Unmarshal(raw, &st)
	}
	return st
}

// set stores st as sess's state.
func (st *storedState) set(sess *httptransport.Session) {
	if raw, err := json.Marshal(st); err == nil {
		sess.SetState(raw)
	}
}

// saveState records in the session's state what a successful initialize,
// logging/setLevel, resources/subscribe or resources/unsubscribe changed,
// and returns the state.
func (e *Engine) saveState(call *httptransport.Call, ss *mcp.ServerSession, resp *jsonrpc.Message) storedState {
	if !sessionMethod(call.Request.Method) {
		return storedState{} // changes nothing: no state to decode
	}
	st := readState(call.Session)
	switch call.Request.Method {
	case "initialize":
		st.InitializeParams = ss.InitializeParams()
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(resp.Result, &res)
		st.NegotiatedProtocolVersion = res.ProtocolVersion
	case "logging/setLevel":
		var p struct {
			Level mcp.LoggingLevel `json:"level"`
		}
		if json.Unmarshal(call.Request.Params, &p) != nil {
			return st
		}
		st.LogLevel = p.Level
	case "resources/subscribe", "resources/unsubscribe":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(call.Request.Params, &p) != nil || p.URI == "" {
			return st
		}
		st.Subscriptions = slices.DeleteFunc(st.Subscriptions, func(u string) bool { return u == p.URI })
		if call.Request.Method == "resources/subscribe" {
			st.Subscriptions = append(st.Subscriptions, p.URI)
		}
	default:
		return st
	}
	st.set(call.Session)
	return st
}

// SessionStateChanged implements httptransport.SessionStateObserver: the
// session's SDK connection here takes the log level and the resource
// subscriptions that another instance saved, so that its messages outside
// any call (log messages, resources/updated) follow them.
func (e *Engine) SessionStateChanged(ctx context.Context, sess *httptransport.Session) {
	l := e.link(sess.ID)
	if l == nil {
		return
	}
	st := readState(sess)
	if l.connected() == nil && len(st.Subscriptions) == 0 {
		return // the next connection starts from the state
	}
	ctl, err := l.acquire() // a new connection subscribes as it connects
	if err != nil {
		return
	}
	defer l.release() // with the last subscription gone, the linger starts
	ctl.follow(ctx, st)
}

// applied is the part of a session's state its connection holds: the log
// level and the subscriptions (controlConn.follow).
type applied struct {
	level mcp.LoggingLevel
	subs  []string
}

// noteApplied records that the connection holds st (a request that ran on
// it changed it).
func (c *controlConn) noteApplied(st storedState) {
	c.mu.Lock()
	c.applied = applied{level: st.LogLevel, subs: slices.Clone(st.Subscriptions)}
	c.mu.Unlock()
}

// follow brings the connection to st's log level and subscriptions, by
// running logging/setLevel, resources/subscribe and resources/unsubscribe
// on it as the client would have. A request that fails is logged by the
// SDK's handler, if at all; the next change tries again.
func (c *controlConn) follow(ctx context.Context, st storedState) {
	c.followMu.Lock() // one change at a time, in order
	defer c.followMu.Unlock()
	c.mu.Lock()
	have := c.applied
	c.mu.Unlock()
	next := applied{level: have.level, subs: slices.Clone(have.subs)}
	if st.LogLevel != "" && st.LogLevel != have.level && c.run(ctx, "logging/setLevel", map[string]any{"level": st.LogLevel}) {
		next.level = st.LogLevel
	}
	for _, uri := range st.Subscriptions {
		if !slices.Contains(have.subs, uri) && c.run(ctx, "resources/subscribe", map[string]string{"uri": uri}) {
			next.subs = append(next.subs, uri)
		}
	}
	for _, uri := range have.subs {
		if !slices.Contains(st.Subscriptions, uri) && c.run(ctx, "resources/unsubscribe", map[string]string{"uri": uri}) {
			next.subs = slices.DeleteFunc(next.subs, func(u string) bool { return u == uri })
		}
	}
	c.mu.Lock()
	c.applied = next
	c.mu.Unlock()
}

// run sends the SDK a request on the connection, as from the client, and
// reports whether it succeeded.
func (c *controlConn) run(ctx context.Context, method string, params any) bool {
	raw, err := json.Marshal(params)
	if err != nil {
		return false
	}
	resp, err := c.roundTrip(ctx, &gojsonrpc.Request{Method: method, Params: raw})
	return err == nil && resp.Error == nil
}
