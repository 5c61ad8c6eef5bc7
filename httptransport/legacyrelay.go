package httptransport

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// A 2024-11-05 session lives on the instance holding its event stream,
// chosen by the load balancer for the GET that opened it; the client's
// POSTs (…?sessionId=) go wherever the load balancer sends them. With a
// shared SessionStore that implements SessionRelay, an instance that gets
// a POST for a session it does not hold checks the session's record (its
// owner) and publishes the message on the session's channel; the instance
// holding the stream serves it as if it had been POSTed there, with the
// caller's identity and headers, and the answer goes out on the stream.
// So 2024-11-05 clients need no sticky routing either. The POST is
// answered 202 once the message is published: a call refused by its
// principal's quota on the holding instance gets its error on the stream.

// legacyMethod is the method of a relayed 2024-11-05 POST; params:
// legacyPost. A client cannot have one published (sessionrelay.go).
const legacyMethod = "mcpmount/legacy-post"

// legacyPost is what one instance relays of a 2024-11-05 POST.
type legacyPost struct {
	Message  json.RawMessage `json:"message"`
	Identity *identity.Info  `json:"identity,omitempty"`
	Header   http.Header     `json:"header,omitempty"`
}

// relayLegacyPost publishes m, POSTed by r for session sid, which no copy
// here holds, to the instance holding the session's event stream. It
// answers errSessionNotFound when there is no such session of the caller's
// (or nothing to relay it with, or the instance holding its stream
// stopped), errSessionUnavailable when the store or the relay fails.
func (h *Handler) relayLegacyPost(r *http.Request, sid, owner string, m *jsonrpc.Message) *httpError {
	relay := h.cfg.relay
	if relay == nil {
		return errSessionNotFound
	}
	var rec *SessionRecord
	var err error
	h.withStore(r.Context(), func(ctx context.Context) { rec, err = h.sessions.Get(ctx, sid) })
	switch {
	case err == ErrNoSession || (err == nil && (!rec.Legacy || rec.Owner != owner)):
		return errSessionNotFound
	case err != nil:
		h.warn("mcp: reading the session from the store failed", "session", logval.String(sid), "error", logval.Err(err))
		return errSessionUnavailable
	case rec.Holder != "" && h.instanceStopped(r.Context(), rec.Holder):
		// Its event stream ended with the instance that held it, and the
		// session with its stream: no instance would serve the message.
		h.withStore(r.Context(), func(ctx context.Context) { _ = h.sessions.Delete(ctx, sid) })
		return errSessionNotFound
	}
	data, err := m.Encode()
	if err != nil {
		return rpcRefusal(err)
	}
	header := r.Header.Clone()
	for _, k := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
		header.Del(k) // verified here already; not for another instance's logs
	}
	params, err := json.Marshal(legacyPost{Message: data, Identity: identity.FromContext(r.Context()), Header: header})
	if err == nil {
		var env []byte
		if env, err = jsonrpc.NewNotification(legacyMethod, params).Encode(); err == nil {
			h.withStore(r.Context(), func(ctx context.Context) { err = relay.Publish(ctx, sid, env) })
		}
	}
	if err != nil {
		h.warn("mcp: relaying a 2024-11-05 POST to the instance holding its stream failed", "session", logval.String(sid), "error", logval.Err(err))
		return errSessionUnavailable
	}
	return nil
}

// receivedLegacy serves a 2024-11-05 POST another instance relayed for
// this session, whose event stream is held here.
func (ls *liveSession) receivedLegacy(m *jsonrpc.Message) {
	var p legacyPost
	if !ls.sess.Legacy || json.Unmarshal(m.Params, &p) != nil || p.Identity.Owner() != ls.owner {
		return
	}
	msg, err := jsonrpc.Decode(p.Message)
	if err != nil {
		return
	}
	ctx := identity.NewContext(context.WithoutCancel(ls.ctx), p.Identity)
	if p.Identity == nil {
		ctx = context.WithoutCancel(ls.ctx)
	}
	r := (&http.Request{Method: http.MethodPost, Header: p.Header}).WithContext(ctx)
	if r.Header == nil {
		r.Header = http.Header{}
	}
	ls.later(func() {
		ls.h.withStore(ctx, func(ctx context.Context) { _ = ls.touch(ctx) }) // as a POST here does
		if herr := ls.h.serveLegacyMessage(r, ls, msg); herr != nil {
			ls.standalone.SendRaw(output.ErrorBody(msg.ID, herr.rpc))
		}
	})
}

// legacyHolder is the Holder of the record of a session served here: this
// instance's tag for a 2024-11-05 session, when it keeps a liveness
// record.
func (h *Handler) legacyHolder(legacy bool) string {
	if !legacy || h.watch.store == nil {
		return ""
	}
	return h.tag
}
