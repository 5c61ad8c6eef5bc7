package httptransport

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// How a 2025-era session served by several instances uses the store's
// SessionRelay (relay.go): each instance serving the session subscribes to
// its channel; what a client POSTs about a call that is not in flight on
// the instance it reached is published there, and the instance running
// the call delivers it.

// serverRequestPrefix starts the id of every server-to-client request the
// transport sends in a 2025-era session (registerRequest).
const serverRequestPrefix = "mcpmount-"

// relay returns the store's SessionRelay for a session other instances may
// serve, or reach (a 2024-11-05 session's POSTs, legacyrelay.go), or nil.
func (ls *liveSession) relay() SessionRelay {
	if !ls.h.cfg.sharedSessions {
		return nil
	}
	return ls.h.cfg.relay
}

// subscribe listens on the session's relay channel while the session is
// served here (until endIf). A failure is logged: the session is still
// served, reached by sticky routing.
func (ls *liveSession) subscribe() {
	relay := ls.relay()
	if relay == nil {
		return
	}
	var (
		unsubscribe func()
		err         error
	)
	ls.h.withStore(ls.ctx, func(ctx context.Context) {
		unsubscribe, err = relay.Subscribe(ctx, ls.id, ls.received)
	})
	if err != nil {
		ls.h.warn("mcp: subscribing to the session's relay failed; answers and cancellations for its calls here must reach this instance", "session", logval.String(ls.id), "error", logval.Err(err))
		return
	}
	ls.mu.Lock()
	if !ls.ended {
		ls.unsubscribe = unsubscribe
		unsubscribe = nil
	}
	ls.mu.Unlock()
	if unsubscribe != nil { // the session ended meanwhile
		unsubscribe()
		return
	}
	ls.askStream(ls.ctx) // where the session's messages go (sessionfollow.go)
}

// received handles a message relayed from an instance serving the same
// session: an answer goes to the call here that asked, a cancellation to
// the call it names. Nothing is published from here.
func (ls *liveSession) received(data []byte) {
	m, err := jsonrpc.Decode(data)
	switch {
	case err != nil:
		ls.h.cfg.logger.Debug("mcp: relayed message ignored", "session", logval.String(ls.id), "error", logval.Err(err))
	case m.IsResponse():
		ls.deliverReply(m)
	case m.Method == "notifications/cancelled":
		if id, ok := cancelledID(m); ok {
			ls.cancelCall(id)
		}
	case m.Method == streamMethod:
		ls.receivedStream(m)
	case m.Method == forwardMethod:
		ls.receivedForward(m)
	case m.Method == legacyMethod:
		ls.receivedLegacy(m)
	default:
		ls.h.cfg.logger.Debug("mcp: relayed message ignored", "session", logval.String(ls.id), "method", logval.String(m.Method))
	}
}

// relayReply publishes a client's answer that no request of this copy of
// the session awaits, if its id is one another copy minted: the call that
// asked may run on another instance. Other ids are not published: what a
// client can make the instance publish is answers of that form, on its own
// session's channel, each at most a body's size (MaxBodyBytes).
func (h *Handler) relayReply(ctx context.Context, ls *liveSession, m *jsonrpc.Message) {
	if ls.relay() != nil && ls.mintedElsewhere(m.ID) {
		h.publish(ctx, ls, m)
	}
}

// relayCancel publishes a notifications/cancelled for requestID, which is
// not in flight here: it may be on another instance. Only the id goes, not
// whatever else the client put in the notification.
func (h *Handler) relayCancel(ctx context.Context, ls *liveSession, requestID jsonrpc.ID) {
	if ls.relay() == nil {
		return
	}
	params := json.RawMessage(`{"requestId":` + requestID.Raw() + `}`)
	h.publish(ctx, ls, jsonrpc.NewNotification("notifications/cancelled", params))
}

// publish sends m on the session's relay channel; a failure is logged, the
// client's POST answered as before.
func (h *Handler) publish(ctx context.Context, ls *liveSession, m *jsonrpc.Message) {
	data, err := m.Encode()
	if err == nil {
		h.withStore(ctx, func(ctx context.Context) { err = ls.relay().Publish(ctx, ls.id, data) })
	}
	if err != nil {
		h.warn("mcp: relaying a message to the session's other instances failed", "session", logval.String(ls.id), "error", logval.Err(err))
	}
}

// mintedElsewhere reports whether id has the form of a server request id
// that registerRequest mints ("mcpmount-", a tag, "-", a number), with a
// tag other than this copy's.
func (ls *liveSession) mintedElsewhere(id jsonrpc.ID) bool {
	key := id.Key() // a string's is its decoded text between quotes
	if len(key) < 2 || key[0] != '"' {
		return false
	}
	rest, ok := strings.CutPrefix(key[1:len(key)-1], serverRequestPrefix)
	if !ok {
		return false
	}
	tag, n, ok := strings.Cut(rest, "-")
	return ok && len(tag) == len(ls.tag) && tag != ls.tag && isTagText(tag) && isCounter(n)
}

// isTagText reports whether s holds only characters of session ids and
// tags (newSessionID: base32, upper case).
func isTagText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'A' || c > 'Z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// isCounter reports whether s is a positive decimal number as
// strconv.Itoa writes it, of at most 19 digits.
func isCounter(s string) bool {
	return s != "" && len(s) <= 19 && s[0] != '0' && allDigits(s)
}

// cancelledID reads the requestId of a notifications/cancelled.
func cancelledID(m *jsonrpc.Message) (jsonrpc.ID, bool) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil || !p.RequestID.IsValid() {
		return jsonrpc.ID{}, false
	}
	return p.RequestID, true
}
