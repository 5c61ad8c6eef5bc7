package httptransport

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// serveStreamablePost answers a POST under the 2025-era rules (spec 2025-11-25 basic/transports#streamable-http):
// initialize creates a session; every later request names it in
// Mcp-Session-Id; a request without one gets 400 and an unknown one 404.
func (h *Handler) serveStreamablePost(w http.ResponseWriter, r *http.Request, req *request, accept acceptance) {
	first := req.msgs[0]
	if !req.batch {
		if err := req.errs[0]; err != nil {
			writeRefusal(w, first.ID, rpcRefusal(err))
			return
		}
	}
	// With Options.Stateless an Mcp-Session-Id (from an earlier deployment,
	// or a client that kept one) is ignored, as no session is ever minted.
	var sid string
	if !h.cfg.stateless {
		var herr *httpError
		if sid, herr = sessionIDHeader(r); herr != nil {
			writeRefusal(w, noID, herr)
			return
		}
	}
	header := r.Header.Get("Mcp-Protocol-Version")
	if served := h.versions(h.engine.Describe(r.Context())); header != "" && !slices.Contains(served, header) {
		writeRPCError(w, http.StatusBadRequest, first.ID, unsupportedVersion(served, header))
		return
	}
	if slices.ContainsFunc(req.msgs, func(m *jsonrpc.Message) bool { return m.Method == "initialize" }) {
		switch {
		case req.batch:
			writeRefusal(w, noID, errInitInBatch)
		case sid != "":
			writeRefusal(w, first.ID, errReinitialize)
		default:
			h.initialize(w, r, first, accept)
		}
		return
	}
	if sid == "" {
		if !h.cfg.stateless {
			writeRefusal(w, first.ID, errSessionMissing)
			return
		}
		version := header
		if version == "" {
			version = Version20250326 // spec 2025-11-25 basic/transports#protocol-version-header: assume 2025-03-26
		}
		if req.batch && version != Version20250326 {
			writeRefusal(w, noID, errBatchNotAllowed)
			return
		}
		h.serveMessages(&exchange{w: w, r: r, accept: accept, version: version}, req)
		return
	}
	ls, herr := h.lookup(r, sid) // records the activity
	if herr != nil {
		writeRefusal(w, first.ID, herr)
		return
	}
	// A supported MCP-Protocol-Version that differs from the negotiated one
	// is served under the session's version: spec 2025-11-25
	// basic/transports#protocol-version-header does not say what a server
	// does then, and deployed clients (conformance 0.1.16) send a fixed one.
	if req.batch && ls.sess.Version != Version20250326 {
		writeRefusal(w, noID, errBatchNotAllowed)
		return
	}
	h.serveMessages(&exchange{w: w, r: r, accept: accept, ls: ls, version: ls.sess.Version}, req)
}

// sessionIDHeader returns the Mcp-Session-Id, which must appear at most once
// and hold visible ASCII.
func sessionIDHeader(r *http.Request) (string, *httpError) {
	values := r.Header.Values("Mcp-Session-Id")
	switch {
	case len(values) == 0:
		return "", nil
	case len(values) > 1 || !validSessionID(values[0]):
		return "", errSessionHeader
	}
	return values[0], nil
}

// lookup finds a session this instance serves, or loads it from the store
// and starts serving it here. A session owned by another principal is
// reported as not found (spec 2025-11-25 basic/transports#session-management, "Session Hijacking").
func (h *Handler) lookup(r *http.Request, sid string) (*liveSession, *httpError) {
	owner := identity.FromContext(r.Context()).Owner()
	h.mu.Lock()
	ls := h.live[sid]
	h.mu.Unlock()
	if ls != nil {
		// A 2024-11-05 session is reached through its sessionId URL only.
		if ls.owner != owner || ls.sess.Legacy {
			return nil, errSessionNotFound
		}
		var err error
		h.withStore(r.Context(), func(ctx context.Context) { err = ls.refresh(ctx) })
		if errors.Is(err, ErrNoSession) {
			// Deleted or expired on another instance sharing the store.
			h.withStore(context.WithoutCancel(r.Context()), ls.gone)
			return nil, errSessionNotFound
		} else if err != nil {
			h.warn("mcp: checking the session in the store failed", "session", logval.String(sid), "error", logval.Err(err))
		}
		return ls, nil
	}
	var rec *SessionRecord
	var err error
	h.withStore(r.Context(), func(ctx context.Context) { rec, err = h.sessions.Get(ctx, sid) })
	switch {
	case errors.Is(err, ErrNoSession):
		if !h.cfg.sharedSessions {
			h.noteForeignSession(sid)
		}
		return nil, errSessionNotFound
	case err != nil:
		// The store failed, not the session: a 404 would make the client
		// drop a session that may well be there.
		h.warn("mcp: reading the session from the store failed", "session", logval.String(sid), "error", logval.Err(err))
		return nil, errSessionUnavailable
	case rec.Owner != owner || rec.Legacy:
		return nil, errSessionNotFound
	}
	release := h.admitSession(r.Context(), "")
	if release == nil {
		return nil, errInstanceSessions
	}
	sess := &Session{ID: rec.ID, Version: rec.Version, Legacy: rec.Legacy, state: rec.State}
	ls, err = h.adopt(h.newLiveSession(sess, owner, "", release))
	if errors.Is(err, errClosing) {
		return nil, errShuttingDown
	}
	if err != nil {
		h.warn("mcp: opening the session on the engine failed", "session", logval.String(sid), "error", logval.Err(err))
		return nil, errSessionUnavailable
	}
	h.withStore(r.Context(), func(ctx context.Context) { _ = ls.touch(ctx) }) // the record was just read
	return ls, nil
}

// errClosing refuses to start serving a session once Shutdown has begun.
var errClosing = errors.New("httptransport: shutting down")

// adopt registers a live session and opens it on the engine. If another
// request adopted the same session first, that one wins. Once Shutdown
// has begun no session is adopted (errClosing): Shutdown ends the sessions
// it listed under h.mu after setting closing, and one adopted later, by a
// request already in flight, would outlive it with its relay subscription.
func (h *Handler) adopt(ls *liveSession) (*liveSession, error) {
	h.mu.Lock()
	if cur := h.live[ls.id]; cur != nil {
		h.mu.Unlock()
		ls.stop()
		if ls.release != nil {
			ls.release()
		}
		return cur, nil
	}
	if h.closing.Load() {
		h.mu.Unlock()
		ls.end(context.WithoutCancel(ls.ctx), false)
		return nil, errClosing
	}
	h.live[ls.id] = ls
	h.mu.Unlock()
	h.startJanitor()
	ls.subscribe()
	if err := h.engine.OpenSession(ls.ctx, ls.sess, ls); err != nil {
		ls.end(context.WithoutCancel(ls.ctx), false)
		return nil, err
	}
	return ls, nil
}

// initialize creates a session (or, with Options.Stateless, answers
// without one). The session's record is stored before the engine runs, so
// that the Mcp-Session-Id the response carries (on its headers, which may
// go out before the answer) always names a stored session: a store that
// fails refuses the handshake with 503 and no session id.
func (h *Handler) initialize(w http.ResponseWriter, r *http.Request, m *jsonrpc.Message, accept acceptance) {
	if h.cfg.stateless {
		req := &request{msgs: []*jsonrpc.Message{m}, errs: []error{nil}}
		h.serveMessages(&exchange{w: w, r: r, accept: accept, version: requestedVersion(m)}, req)
		return
	}
	owner := identity.FromContext(r.Context()).Owner()
	addr := h.sessionAddr(r, owner)
	release, herr := h.admitNewSession(r.Context(), owner, addr)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	sess := &Session{ID: h.mintSessionID(), Version: requestedVersion(m)}
	rec := &SessionRecord{ID: sess.ID, Owner: owner, Version: sess.Version}
	var err error
	h.withStore(r.Context(), func(ctx context.Context) { err = h.sessions.Put(ctx, rec, h.cfg.idleTimeout) })
	if err != nil {
		release()
		h.logError("mcp: storing new session failed", "error", logval.Err(err))
		writeRefusal(w, noID, errSessionStore)
		return
	}
	ls := h.newLiveSession(sess, owner, addr, release)
	st := h.newStream(w, accept, false)
	st.reqID = m.ID
	st.header = func(hd http.Header) { hd.Set("Mcp-Session-Id", sess.ID) }
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	call := &Call{Request: m, Version: sess.Version, Session: sess, Header: r.Header, out: st, ctx: ctx, cancel: cancel}
	st.startTimer(r)
	resp, err := h.serveEngine(ctx, call)
	resp = responseOf(m.ID, resp, err)
	if resp.Error == nil {
		sess.Version = negotiatedVersion(resp, sess.Version)
		sess.takeDirty()
		rec.Version, rec.State = sess.Version, sess.State()
		ls.touched = time.Now() // not yet visible to other goroutines
		h.withStore(r.Context(), func(ctx context.Context) { err = h.sessions.Put(ctx, rec, h.cfg.idleTimeout) })
		if err != nil {
			h.logError("mcp: storing new session failed", "error", logval.Err(err))
			resp = jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "could not store the session"))
		} else if _, err := h.adopt(ls); err != nil {
			if !errors.Is(err, errClosing) {
				h.logError("mcp: engine refused the session", "error", logval.Err(err))
			}
			resp = jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeInternalError, "could not open the session"))
		}
	}
	if resp.Error != nil {
		st.header = nil
		ls.stop()
		release() // once: a failed adopt ended the session, which gave it back
		h.withStore(context.WithoutCancel(r.Context()), func(ctx context.Context) { _ = h.sessions.Delete(ctx, sess.ID) })
	}
	st.finish(resp)
	st.detach()
}

// admitNewSession takes a new session's places in the bounds it counts in:
// its principal's (Options.MaxSessionsPerPrincipal), the instance's and
// its client address's (sessionbound.go). It returns what gives them all
// back, once however often it is called, or the refusal.
func (h *Handler) admitNewSession(ctx context.Context, owner, addr string) (release func(), herr *httpError) {
	if !h.sessionQ.take(owner, 1) {
		return nil, errTooManySessions
	}
	principal := h.sessionQ.place(owner)
	bound := h.admitSession(ctx, addr)
	if bound == nil {
		if principal != nil {
			principal()
		}
		return nil, errInstanceSessions
	}
	if principal == nil {
		return bound, nil
	}
	return func() { principal(); bound() }, nil
}

// negotiatedVersion reads protocolVersion from an initialize result.
func negotiatedVersion(resp *jsonrpc.Message, def string) string {
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(resp.Result, &res) == nil && res.ProtocolVersion != "" {
		return res.ProtocolVersion
	}
	return def
}

// requestedVersion is initialize's requested version when the transport
// knows it as a 2025-era one, else the newest 2025-era version.
func requestedVersion(m *jsonrpc.Message) string {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(m.Params, &p)
	switch p.ProtocolVersion {
	case Version20241105, Version20250326, Version20250618, Version20251125:
		return p.ProtocolVersion
	}
	return Version20251125
}

// serveMessages handles the messages of a 2025-era POST: answers to server
// requests go to the calls that asked, notifications to the engine (or,
// for notifications/cancelled, to the call they name), and requests become
// calls. An answer or a cancellation for a call on another instance goes
// there through the store's SessionRelay, if it has one (sessionrelay.go).
// Without requests the answer is 202 (spec 2025-11-25 basic/transports#sending-messages-to-the-server, P4). A batch
// (2025-03-26) is answered as JSON-RPC answers batches: one response per
// request, and an error for each member that is not a valid message (with
// its id when it has one, else null), as an array or as SSE events.
func (h *Handler) serveMessages(x *exchange, req *request) {
	w, r, ls, accept := x.w, x.r, x.ls, x.accept
	var (
		calls   []*jsonrpc.Message
		refused [][]byte // error responses to a batch's invalid members
	)
	if h.calls != nil && !h.admitCalls(w, r, req) {
		return
	}
	for i, m := range req.msgs {
		switch {
		case req.errs[i] != nil:
			if !req.batch {
				writeRefusal(w, m.ID, rpcRefusal(req.errs[i]))
				return
			}
			// Batches are 2025-03-26 only, whose schema requires an id:
			// null when it cannot be read, as JSON-RPC 2.0 says.
			id := m.ID
			if !id.IsValid() {
				id = jsonrpc.NullID()
			}
			refused = append(refused, errorBody(id, rpcRefusal(req.errs[i]).rpc))
		case m.IsResponse():
			if ls != nil && ls.deliverReply(m) == replyNotPending {
				h.relayReply(r.Context(), ls, m)
			}
		case m.IsNotification():
			h.notify(r.Context(), ls, m)
		default:
			calls = append(calls, m)
		}
	}
	if ls != nil {
		h.withStore(r.Context(), ls.save)
	}
	switch {
	case len(calls) == 0 && len(refused) == 0:
		w.WriteHeader(http.StatusAccepted)
	case !req.batch:
		st := h.newStream(w, accept, false)
		st.reqID = calls[0].ID
		h.runCall(x, calls[0], st)
	default:
		h.serveBatch(x, calls, refused)
	}
}

// notify handles a client notification in a session.
func (h *Handler) notify(ctx context.Context, ls *liveSession, m *jsonrpc.Message) {
	if m.Method == "notifications/cancelled" {
		if id, ok := cancelledID(m); ok && ls != nil && !ls.cancelCall(id) {
			h.relayCancel(ctx, ls, id)
		}
		return
	}
	var sess *Session
	if ls != nil {
		sess = ls.sess
	}
	h.survive("Notify", m.Method, func() { h.engine.Notify(ctx, sess, m) })
}

// runCall serves one 2025-era request on st. In a session the engine runs
// on a context detached from the HTTP request: a dropped connection does
// not cancel a 2025-era call (spec 2025-11-25 basic/transports#sending-messages-to-the-server); notifications/cancelled and the
// end of the session do. A stateless call (Options.Stateless) has no
// session to carry notifications/cancelled or a resumed stream, so its
// dropped POST cancels it. The POST waits for the response, or for the
// client to leave.
func (h *Handler) runCall(x *exchange, m *jsonrpc.Message, st *stream) {
	done := h.startCall(x, m, st)
	if done == nil {
		return
	}
	select {
	case <-done:
	case <-x.r.Context().Done():
	}
	st.detach()
}

// startCall starts the engine on a call and returns a channel closed when
// the call's stream ends, or nil if the call was refused (already answered).
// The caller took the call's place in the principal's quota (h.calls);
// startCall gives it back when the call ends.
func (h *Handler) startCall(x *exchange, m *jsonrpc.Message, st *stream) <-chan struct{} {
	r, ls, version := x.r, x.ls, x.version
	parent, base := h.ctx, r.Context()
	if ls != nil {
		// A session call outlives its POST (spec 2025-11-25 basic/transports#sending-messages-to-the-server): the client may
		// resume its stream, or cancel it with notifications/cancelled.
		parent, base = ls.ctx, context.WithoutCancel(base)
	}
	// Without a session (Options.Stateless) neither is possible: the call
	// ends with its POST, as a 2026-07-28 call does.
	ctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(parent, cancel)
	context.AfterFunc(ctx, st.guard.abort) // a write blocked on the client ends with the call
	owner := h.calls.owner(r.Context())
	call := &Call{Request: m, Version: version, Header: r.Header.Clone(), out: st, ctx: ctx, cancel: cancel}
	if ls != nil {
		call.Session, call.live = ls.sess, ls
		call.replies = make(chan *jsonrpc.Message, 8)
		if !ls.sess.Legacy {
			ls.newCallStream(st)
		}
		if !ls.addCall(call) {
			ls.dropStream(st)
			h.calls.give(owner, 1)
			stop()
			cancel()
			st.finish(jsonrpc.NewError(m.ID, jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "request id already in flight in this session")))
			return nil
		}
	}
	// A 2024-11-05 answer goes out on the session's one event stream,
	// where answers queue behind a write to a client that stopped reading:
	// such a call keeps its place until its answer is next to be written
	// (then the event stream gives it back, st.relayed), or the queue
	// would be unbounded.
	relayed := ls != nil && ls.sess.Legacy
	release := func() { h.calls.give(owner, 1) }
	if relayed {
		release = sync.OnceFunc(release)
		st.mu.Lock()
		st.relayed = release
		st.mu.Unlock()
	}
	st.startTimer(r)
	h.inflight.enterLate()
	go func() {
		defer h.inflight.exit()
		defer stop()
		defer cancel()
		resp, err := h.serveEngine(ctx, call) // recovers the engine's panics
		resp = responseOf(m.ID, resp, err)
		// The call's place in the quota and its id are free, and its
		// store work (the state it changed, the record it outlasted) is
		// done, before its answer goes out: the client may send its next
		// call, reuse the id, or reach another instance as soon as it has
		// the answer (a 2024-11-05 call: see relayed above).
		if !relayed {
			release()
		}
		if ls != nil {
			ls.releaseID(call)
			ls.afterCall(context.WithoutCancel(ctx))
		}
		if ctx.Err() != nil {
			st.cut() // cancelled: no response follows (spec 2025-11-25 basic/utilities/cancellation)
		} else {
			st.finish(resp)
		}
		if relayed {
			release() // if the answer was never relayed (cut, or the stream gone)
		}
		if ls != nil {
			ls.removeCall(call)
		}
	}()
	return st.done()
}

// serveBatch serves a 2025-03-26 batch of requests on one SSE stream, each
// response an event, or as a JSON array for clients that take no SSE. The
// errors for the batch's invalid members (refused) come first.
func (h *Handler) serveBatch(x *exchange, calls []*jsonrpc.Message, refused [][]byte) {
	w, r, accept := x.w, x.r, x.accept
	batch := h.newStream(w, acceptance{json: !accept.sse, sse: accept.sse}, false)
	// The header flush and keep-alives of a silent batch, or, for a JSON
	// answer, the lift of the server's WriteTimeout.
	batch.startTimer(r)
	var (
		mu        sync.Mutex
		collected []json.RawMessage
		answered  bool // the JSON array is out: later answers go nowhere
	)
	relay := func(data []byte) {
		if accept.sse {
			batch.sendRaw(data)
			return
		}
		mu.Lock()
		if !answered {
			collected = append(collected, data)
		}
		mu.Unlock()
	}
	for _, data := range refused {
		relay(data)
	}
	dones := make([]<-chan struct{}, 0, len(calls))
	for _, m := range calls {
		// Members take what the batch takes: over SSE everything relays,
		// as JSON only the responses (send drops the rest).
		sub := h.newStream(nil, acceptance{json: !accept.sse, sse: accept.sse}, false)
		sub.reqID, sub.relay = m.ID, relay
		if d := h.startCall(x, m, sub); d != nil {
			dones = append(dones, d)
		}
	}
	for _, d := range dones {
		select {
		case <-d:
		case <-r.Context().Done():
		}
	}
	if accept.sse {
		batch.cut()
		batch.detach()
		return
	}
	// The client may have left with calls still running, which relay on.
	mu.Lock()
	answered = true
	body, _ := json.Marshal(collected)
	mu.Unlock()
	batch.finishJSON(body)
	batch.detach()
}

// serveGet opens or resumes (Last-Event-ID) the GET stream of session sid,
// or of a stream the Last-Event-ID names (routeOf).
func (h *Handler) serveGet(w http.ResponseWriter, r *http.Request, sid string) {
	lastID := r.Header.Get("Last-Event-Id")
	if !parseAccept(r).sse {
		writeRefusal(w, noID, errNotAcceptableSSE)
		return
	}
	if h.refuseUnflushable(w, noID, errCannotFlushGet) {
		return
	}
	if sid == "" {
		writeRefusal(w, noID, errSessionMissing)
		return
	}
	if herr := h.checkVersionHeader(r); herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	ls, herr := h.lookup(r, sid)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	st, after, replay, carried, herr := h.streamFor(r, ls, lastID)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	if st == nil {
		h.replayEnded(w, r, ls, lastID)
		return
	}
	owner := h.streams.owner(r.Context())
	if !h.streams.take(owner, 1) {
		refuseOverQuota(w, errTooManyStreams)
		return
	}
	release := h.streams.place(owner)
	detached, err := st.attach(w, after, replay, h.parkable(r), release, carried...)
	if err != nil {
		h.streams.give(owner, 1)
		writeRefusal(w, noID, err.(*httpError))
		return
	}
	if st.standalone {
		st.startTimer(r)
		ls.announceStream(r.Context(), true) // the session's messages come here now (sessionfollow.go)
	}
	h.hold(&exchange{w: w, r: r, ls: ls}, st, detached, release, func() {
		ctx := context.WithoutCancel(r.Context())
		if st.standalone {
			ls.announceStream(ctx, false)
		}
		h.withStore(ctx, func(ctx context.Context) { _ = ls.touch(ctx) })
	})
}

// hold keeps a GET attached to st until the client leaves, the stream or
// the session ends, or the handler shuts down; the session counts as active
// meanwhile, so it does not expire under an open stream. after runs once
// the GET is over. On HTTP/1.x the stream is parked (park.go) and hold
// returns at once; after then runs on the stream's watcher.
//
// The caller took the stream's place in the principal's quota, and gave
// attach the release that gives it back (the stream calls it as the GET
// ends, hold when the GET is over, if it has not been); hold ends the GET
// when its time is up (streamLimit).
func (h *Handler) hold(x *exchange, st *stream, detached <-chan struct{}, release, after func()) {
	w, r, ls := x.w, x.r, x.ls
	ls.mu.Lock()
	ls.active++
	ls.mu.Unlock()
	stopLimit := func() bool { return false }
	if d, ok := h.streamLimit(r); ok {
		stopLimit = time.AfterFunc(d, func() { st.detachAttached(detached) }).Stop
	}
	over := func() {
		stopLimit()
		if release != nil {
			release()
		}
		ls.mu.Lock()
		ls.active--
		ls.mu.Unlock()
		after()
	}
	if h.park(w, r, st, over) {
		return
	}
	select {
	case <-detached:
	case <-st.done():
	case <-r.Context().Done():
	case <-h.shutdownC:
	case <-h.watchServer(r).downC(): // http.Server.Shutdown waits for this handler
	}
	st.detach()
	over()
}

// serveDelete ends the 2025-era session sid (spec 2025-11-25
// basic/transports#session-management).
func (h *Handler) serveDelete(w http.ResponseWriter, r *http.Request, sid string) {
	if herr := h.checkVersionHeader(r); herr != nil { // before lookup, which would adopt the session here
		writeRefusal(w, noID, herr)
		return
	}
	ls, herr := h.lookup(r, sid)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	// The record goes first: if the store cannot delete it, the session
	// lives on (any instance would serve it again), so the client hears
	// that the DELETE failed, and the session here is left alone. The work
	// is done even if the client leaves meanwhile.
	var err error
	h.withStore(context.WithoutCancel(r.Context()), func(ctx context.Context) {
		ls.recMu.Lock() // no save writes the record back meanwhile
		defer ls.recMu.Unlock()
		if err = h.sessions.Delete(ctx, sid); err != nil && !errors.Is(err, ErrNoSession) {
			return
		}
		err = nil
		ls.gone(ctx) // ended here, its events forgotten
	})
	if err != nil {
		h.warn("mcp: deleting the session from the store failed", "session", logval.String(sid), "error", logval.Err(err))
		writeRefusal(w, noID, errSessionUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// checkVersionHeader refuses a GET or DELETE whose MCP-Protocol-Version
// the engine does not support (spec 2025-11-25 basic/transports#protocol-version-header: 400, and a DELETE so refused
// leaves the session alone). A missing header is accepted, as 2025-03-26
// clients send none.
func (h *Handler) checkVersionHeader(r *http.Request) *httpError {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(h.versions(h.engine.Describe(r.Context())), v) {
		return refusal(http.StatusBadRequest, jsonrpc.CodeServerError, "unsupported MCP-Protocol-Version "+v)
	}
	return nil
}
