package httptransport

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// legacySessionParam is the query parameter naming a 2024-11-05 session in
// the endpoint URI, as the TypeScript SDK spells it.
const legacySessionParam = "sessionId"

// serveLegacyGet opens a 2024-11-05 HTTP+SSE session (spec 2024-11-05 basic/transports#http-with-sse): the first
// event is "endpoint", naming the URI for the client's POSTs; every message
// to the client follows as a "message" event on this stream. The session
// lives as long as this GET.
func (h *Handler) serveLegacyGet(w http.ResponseWriter, r *http.Request) {
	if !slices.Contains(h.versions(h.engine.Describe(r.Context())), Version20241105) {
		// The engine does not serve 2024-11-05: a GET that would open its
		// event stream gets 405, as from a server without that transport.
		w.Header().Set("Allow", "POST")
		writeRefusal(w, noID, errNoLegacy)
		return
	}
	if !acceptsSSE(r) {
		writeRefusal(w, noID, errNotAcceptableSSE)
		return
	}
	if h.refuseUnflushable(w, noID, errCannotFlush) {
		return
	}
	owner := identity.FromContext(r.Context()).Owner()
	if !h.streams.take(owner, 1) {
		refuseOverQuota(w, errTooManyStreams)
		return
	}
	ls, herr := h.openLegacySession(r, owner)
	if herr != nil {
		h.streams.give(owner, 1)
		writeRefusal(w, noID, herr)
		return
	}
	st := ls.standalone
	// The endpoint event goes out under the stream's lock, before any
	// message the engine may already be sending to the session (spec
	// 2024-11-05 basic/transports#http-with-sse).
	endpoint := h.legacyEndpoint(r) + "?" + legacySessionParam + "=" + url.QueryEscape(ls.id)
	release := h.streams.place(owner)
	detached, _ := st.Attach(w, 0, false, h.parkable(r), release, sse.Event{Name: "endpoint", Data: []byte(endpoint)})
	st.StartTimer(r)
	closed := h.observeStream(r.Context(), StreamSSE)
	h.hold(&exchange{w: w, r: r, ls: ls}, st, detached, release, func() {
		closed()
		h.withStore(context.WithoutCancel(r.Context()), func(ctx context.Context) { ls.end(ctx, true) })
	})
}

// openLegacySession creates, stores and opens on the engine the
// 2024-11-05 session of owner's GET r, or returns the refusal: the
// session bound's, or 500 when the store or the engine fails.
func (h *Handler) openLegacySession(r *http.Request, owner string) (*liveSession, *httpError) {
	addr := h.sessionAddr(r, owner)
	release := h.admitSession(r.Context(), addr)
	if release == nil {
		return nil, errInstanceSessions
	}
	sess := &Session{ID: h.mintSessionID(), Version: Version20241105, Legacy: true}
	var err error
	h.withStore(r.Context(), func(ctx context.Context) {
		// It expires with the idle timeout, so none outlives a crashed
		// instance for good; while its stream is open other instances
		// read it to relay the client's POSTs (legacyrelay.go).
		err = h.sessions.Put(ctx, &SessionRecord{ID: sess.ID, Owner: owner, Version: sess.Version, Legacy: true, Holder: h.legacyHolder(true)}, max(h.cfg.idleTimeout, 0))
	})
	if err != nil {
		h.logError("mcp: storing legacy session failed", "error", logval.Err(err))
		release()
		return nil, refusal(http.StatusInternalServerError, jsonrpc.CodeInternalError, "could not store the session")
	}
	ls, err := h.adopt(h.newLiveSession(sess, owner, addr, release))
	if err != nil {
		h.withStore(context.WithoutCancel(r.Context()), func(ctx context.Context) { _ = h.sessions.Delete(ctx, sess.ID) })
		if errors.Is(err, errClosing) {
			return nil, errShuttingDown
		}
		return nil, refusal(http.StatusInternalServerError, jsonrpc.CodeInternalError, "could not open the session")
	}
	return ls, nil
}

// legacyEndpoint is the URI of the POST endpoint: Options.LegacyEndpoint,
// or the path the client requested (RequestURI, which routers and
// http.StripPrefix leave as sent), under X-Forwarded-Prefix when a proxy
// that strips a prefix says so.
func (h *Handler) legacyEndpoint(r *http.Request) string {
	if h.cfg.legacyEndpoint != "" {
		return h.cfg.legacyEndpoint
	}
	path := r.URL.EscapedPath()
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.Path != "" {
		path = u.EscapedPath()
	}
	// A path the client asked for as "//host/..." would name another host
	// as the endpoint: one leading slash only.
	path = "/" + strings.TrimLeft(path, "/")
	if prefix := strings.TrimSuffix(r.Header.Get("X-Forwarded-Prefix"), "/"); pathPrefix(prefix) {
		path = prefix + path
	}
	return path
}

// serveLegacyPost takes a 2024-11-05 client message: 202 Accepted, and the
// answer travels on the session's event stream (spec 2024-11-05 basic/transports#http-with-sse). An unknown
// session gets 404 and a missing one 400.
func (h *Handler) serveLegacyPost(w http.ResponseWriter, r *http.Request) {
	sid := r.URL.Query().Get(legacySessionParam)
	if sid == "" || !validSessionID(sid) {
		writeRefusal(w, noID, refusal(http.StatusBadRequest, jsonrpc.CodeServerError, "sessionId query parameter required"))
		return
	}
	if err := checkContentType(r); err != nil {
		writeRefusal(w, noID, err)
		return
	}
	owner := identity.FromContext(r.Context()).Owner()
	h.mu.Lock()
	ls := h.live[sid]
	h.mu.Unlock()
	if ls != nil && (!ls.sess.Legacy || ls.owner != owner) {
		writeRefusal(w, noID, errSessionNotFound)
		return
	}
	buf, herr := h.readBody(w, r)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	m, err := jsonrpc.Decode(buf.Bytes())
	putBuffer(buf)
	if err == nil {
		err = checkNotification(m)
	}
	if err != nil {
		id := noID
		if m != nil {
			id = m.ID
		}
		writeRefusal(w, id, rpcRefusal(err))
		return
	}
	if h.cfg.rate != nil && !h.admitRate(w, r, singleRequest(m)) {
		return
	}
	if ls == nil {
		// Its event stream may be held by another instance sharing the
		// store and its relay (legacyrelay.go).
		if herr := h.relayLegacyPost(r, sid, owner, m); herr != nil {
			if herr == errSessionNotFound && h.cfg.relay == nil {
				h.noteForeignSession(sid)
			}
			writeRefusal(w, noID, herr)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	h.withStore(r.Context(), func(ctx context.Context) { _ = ls.touch(ctx) })
	if herr := h.serveLegacyMessage(r, ls, m); herr != nil {
		refuseOverQuota(w, herr)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// laterMethod reports the methods of the 2026-07-28 era, which a
// 2024-11-05 session does not serve.
func laterMethod(method string) bool {
	return method == "server/discover" || method == "subscriptions/listen"
}

// serveLegacyMessage serves a message a 2024-11-05 client POSTed for
// session ls, whose event stream is held here; r is the POST, or what
// another instance relayed of it. A call that its principal's quota
// refuses returns the refusal.
func (h *Handler) serveLegacyMessage(r *http.Request, ls *liveSession, m *jsonrpc.Message) *httpError {
	switch {
	case m.IsRequest() && laterMethod(m.Method):
		// A client probing for a later era (go-sdk's sends server/discover
		// first) learns that this session has none, and initializes.
		ls.standalone.SendRaw(output.ErrorBody(m.ID, jsonrpc.Errorf(jsonrpc.CodeMethodNotFound, "method not found in a 2024-11-05 session: "+m.Method)))
	case m.IsResponse():
		ls.deliverReply(m)
	case m.IsNotification():
		h.notify(r.Context(), ls, m)
	default:
		if !h.calls.take(ls.owner, 1) {
			return errTooManyCalls
		}
		// All goes to the event stream; the answer gives the call's quota
		// place back just before its write (startCall).
		out := h.newRelay(m.ID, true, ls.standalone.SendRaw, ls.standalone.SendRawAfter)
		if run := h.startCall(&exchange{r: r, ls: ls, version: ls.sess.Version}, m, out); run != nil {
			go run() // answered on the event stream; the POST is answered now
		}
	}
	return nil
}

// pathPrefix reports whether an X-Forwarded-Prefix value is a plain
// absolute path that keeps the endpoint URI on this host: not "//host",
// and no backslash, space or control character, which URL parsers in
// clients (WHATWG's among them) drop or read as a slash.
func pathPrefix(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return false
	}
	return !strings.ContainsFunc(p, func(c rune) bool { return c <= ' ' || c == 0x7f || c == '\\' })
}
