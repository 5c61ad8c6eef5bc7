package gosdk

import (
	"encoding/json"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// need is what keeps a session's connection up once nothing uses it
// (sessionLink.idle).
type need int

const (
	needNothing       need = iota
	needAnswer             // a request of the SDK's waits for the client's answer
	needSubscriptions      // it holds resource subscriptions, whose updates only a connected SDK session gets
)

// needed reports what keeps c up.
func (c *controlConn) needed() need {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case len(c.applied.subs) > 0:
		return needSubscriptions
	case len(c.asked) > 0:
		return needAnswer
	}
	return needNothing
}

// noteAsked records a request the SDK sends the client, whose answer the
// connection must stay up for; pings are not waited for (closing the
// connection ends the SDK's keepalive). A notifications/cancelled of the
// SDK's ends the wait for the request it names.
func (c *controlConn) noteAsked(m *jsonrpc.Message) {
	switch {
	case m.IsRequest() && m.Method != "ping":
		c.mu.Lock()
		c.asked[m.ID.Key()] = true
		c.mu.Unlock()
	case m.Method == "notifications/cancelled":
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil {
			c.noteAnswered(p.RequestID)
		}
	}
}

// noteAnswered ends the wait for the SDK's request id.
func (c *controlConn) noteAnswered(id jsonrpc.ID) {
	if !id.IsValid() {
		return
	}
	c.mu.Lock()
	delete(c.asked, id.Key())
	c.mu.Unlock()
}

// shut closes the connection and the SDK's session on it. The reading
// ends first: the SDK then cancels the handlers still running on it (one
// waiting for the client's answer, say), whose end the session's Close
// waits for.
func (c *controlConn) shut() {
	c.shutting.Store(true)
	_ = c.Close()
	if c.session != nil {
		_ = c.session.Close()
	}
}
