package httptransport

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// liveSession is what this instance holds of a session it serves: the
// calls in flight, their streams, the standalone stream and the routing of
// server-to-client requests. The durable part lives in the SessionStore.
type liveSession struct {
	h  *Handler
	id string
	// tag prefixes the ids of the session's streams and server requests
	// here: the instance's tag and one of this copy of the session, so an
	// instance serving the session again later (after dropping its idle
	// copy) never reuses an id still in a shared EventStore.
	tag   string
	owner string
	sess  *Session
	ctx   context.Context // cancelled when the session ends here
	stop  context.CancelFunc
	// addr is the client address pool the session counts in
	// (Options.MaxSessionsPerAddress), "" for none.
	addr string
	// release gives back the session's places in the bounds it counts in
	// (Options.MaxSessions, MaxSessionsPerAddress,
	// MaxSessionsPerPrincipal) when it ends here, once; nil if it holds
	// none.
	release func()

	// recMu orders the writes of the session's record: a save (check that
	// the session lives, then Put) against its deletion (a DELETE, an
	// expiry), so that a call ending as the session is deleted cannot
	// write it back.
	recMu sync.Mutex

	mu      sync.Mutex
	calls   map[string]*Call          // in flight, by request id (ID.Key)
	pending map[string]pendingReply   // server requests awaiting answers (ID.Key)
	streams map[string]*output.Stream // live call streams, by stream id
	// relays are the outputs of calls relayed to another stream (a
	// 2024-11-05 call's to the event stream, a batch member's to the
	// batch's), kept until the call is removed: its id is released before
	// its answer is written, its output only after.
	relays     map[*output.Relay]bool
	standalone *output.Stream // GET stream (2025) or event stream (2024-11-05)
	nextStream int
	nextReq    int
	active     int // calls in flight and attached GET streams
	lastUsed   time.Time
	touched    time.Time // when the record was last touched in a shared store
	ended      bool
	evicting   bool // claimed to make room for a new session (sessionbound.go)
	users      int  // requests being served that found the session (pin)
	// unsubscribe ends the session's SessionRelay subscription here
	// (sessionrelay.go); nil when it has none.
	unsubscribe func()
	// streamAt is the tag of the copy, on another instance, holding the
	// session's GET stream as last heard (sessionfollow.go); "" if none.
	streamAt     string
	streamAtGen  uint64 // the Gen of the notice that named streamAt
	streamAtLive bool   // streamAt's instance keeps a liveness record (livewatch.go)
	streamGen    uint64 // this copy's attachments of the stream (streamNotice.Gen)

	// What the relay delivered for the session, run in order off its
	// goroutine (liveSession.later).
	queueMu  sync.Mutex
	queue    []func()
	draining bool
}

type pendingReply struct {
	call   *Call
	id     jsonrpc.ID // the id the engine gave the request
	client jsonrpc.ID // the id the client saw
}

// newLiveSession builds what this instance holds of sess, opened by owner,
// counted in addr's pool, with release giving back its places in the
// bounds (see liveSession.release).
func (h *Handler) newLiveSession(sess *Session, owner, addr string, release func()) *liveSession {
	ls := &liveSession{
		h: h, id: sess.ID, owner: owner, sess: sess, addr: addr, release: release,
		calls:    make(map[string]*Call),
		pending:  make(map[string]pendingReply),
		streams:  make(map[string]*output.Stream),
		relays:   make(map[*output.Relay]bool),
		lastUsed: time.Now(),
	}
	ls.ctx, ls.stop = context.WithCancel(h.ctx)
	role := output.Role{Standalone: true}
	if sess.Legacy {
		role.EventName = "message" // spec 2024-11-05 basic/transports#http-with-sse
	}
	st := h.newStream(nil, acceptance{sse: true}, role)
	// Its id carries the instance's tag like call streams' ids, so event
	// ids stay unique in a session served by several instances (spec
	// 2025-11-25 basic/transports#resumability-and-redelivery).
	ls.tag = h.tag + newCopyTag()
	st.JoinSession(ls, ls.tag+"0", false) // see isStandaloneID
	ls.standalone = st
	return ls
}

// Send implements Sender for the engine's session-level messages: they go
// to the standalone stream (spec 2025-11-25 basic/transports#multiple-connections), or to the event store while no GET
// is attached. A request gets an id unique in the session, as a call's do,
// and the client's answer goes to the engine's Reply (SessionReplier).
func (ls *liveSession) Send(ctx context.Context, msg *jsonrpc.Message) error {
	if msg.IsRequest() {
		out := *msg
		out.ID = ls.registerRequest(nil, msg.ID)
		msg = &out
	} else if msg.Method == "notifications/cancelled" {
		msg = ls.cancelledOut(nil, msg)
	}
	if ls.forward(ctx, msg) {
		return nil
	}
	return ls.standalone.Send(msg)
}

// newCallStream registers a resumable stream for a call. A session that
// has ended gets none: the call is refused, and its refusal must not bring
// the session back into the event store.
func (ls *liveSession) newCallStream(st *output.Stream) {
	ls.mu.Lock()
	if ls.ended {
		ls.mu.Unlock()
		return
	}
	ls.nextStream++
	// Joined before it is listed: the stream may be cut (end) as soon as
	// it is.
	id := ls.tag + strconv.Itoa(ls.nextStream)
	st.JoinSession(ls, id, ls.h.cfg.events != nil && ls.sess.Version >= Version20251125)
	ls.streams[id] = st
	ls.mu.Unlock()
}

// ID is the session's id (output.Session).
func (ls *liveSession) ID() string { return ls.id }

// Context is the session's context, ended with it (output.Session).
func (ls *liveSession) Context() context.Context { return ls.ctx }

// Resumable reports whether the session's streams keep their events for a
// resuming client: not a 2024-11-05 session's (output.Session).
func (ls *liveSession) Resumable() bool { return !ls.sess.Legacy }

// Disconnects reports whether a stream of the session whose time is up
// may end with a server-side disconnect event: 2025-11-25 and later
// (output.Session).
func (ls *liveSession) Disconnects() bool { return ls.sess.Version >= Version20251125 }

// dropStream forgets the stream of a call that was refused.
func (ls *liveSession) dropStream(st *output.Stream) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.streams[st.ID()] == st {
		delete(ls.streams, st.ID())
	}
}

// addCall records a call in flight; a request id already in flight is
// refused (ids must not be reused within a session).
func (ls *liveSession) addCall(c *Call) *jsonrpc.Error {
	key := c.Request.ID.Key()
	ls.mu.Lock()
	defer ls.mu.Unlock()
	switch _, dup := ls.calls[key]; {
	case ls.ended:
		return errSessionNotFound.rpc // deleted or expired meanwhile
	case dup:
		return jsonrpc.Errorf(jsonrpc.CodeInvalidRequest, "request id already in flight in this session")
	}
	ls.calls[key] = c
	if r, ok := c.out.(*output.Relay); ok {
		ls.relays[r] = true
	}
	ls.active++
	return nil
}

// pin keeps the session from being ended to make room for another
// (sessionbound.go) while a request that found it is being served, until
// unpin: between its lookup and its call or stream, it is not idle.
func (ls *liveSession) pin() {
	ls.mu.Lock()
	ls.users++
	ls.mu.Unlock()
}

func (ls *liveSession) unpin() {
	ls.mu.Lock()
	ls.users--
	ls.mu.Unlock()
}

// releaseID frees a call's request id before its answer goes out: a client
// holding the answer may send a request reusing the id at once.
func (ls *liveSession) releaseID(c *Call) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.releaseIDLocked(c)
}

func (ls *liveSession) releaseIDLocked(c *Call) {
	if key := c.Request.ID.Key(); ls.calls[key] == c {
		delete(ls.calls, key)
	}
}

// removeCall forgets a call that has ended.
func (ls *liveSession) removeCall(c *Call) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.releaseIDLocked(c)
	switch out := c.out.(type) {
	case *output.Stream:
		delete(ls.streams, out.ID())
	case *output.Relay:
		delete(ls.relays, out)
	}
	for k, p := range ls.pending {
		if p.call == c {
			delete(ls.pending, k)
		}
	}
	ls.active--
	ls.lastUsed = time.Now()
}

// registerRequest gives a server-to-client request an id unique in the
// session, so answers route back to the call that asked (nil: the session
// itself), whatever ids the engine uses.
func (ls *liveSession) registerRequest(c *Call, engineID jsonrpc.ID) jsonrpc.ID {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.nextReq++
	// The instance's tag keeps ids apart between instances serving one
	// session, whose answers may reach any of them.
	id := jsonrpc.StringID(serverRequestPrefix + ls.tag + "-" + strconv.Itoa(ls.nextReq))
	ls.pending[id.Key()] = pendingReply{call: c, id: engineID, client: id}
	return id
}

// forgetRequest drops a server request registered under the client id id
// that was never sent.
func (ls *liveSession) forgetRequest(id jsonrpc.ID) {
	ls.mu.Lock()
	delete(ls.pending, id.Key())
	ls.mu.Unlock()
}

// cancelledOut rewrites the engine's notifications/cancelled for a request
// it sent (through call c, or the session when c is nil) to name the id
// the client saw, and forgets the request: a late answer goes nowhere.
// Other messages come back unchanged.
func (ls *liveSession) cancelledOut(c *Call, msg *jsonrpc.Message) *jsonrpc.Message {
	var params map[string]json.RawMessage
	if json.Unmarshal(msg.Params, &params) != nil {
		return msg
	}
	engineID, err := jsonrpc.ParseID(params["requestId"])
	if err != nil || !engineID.IsValid() {
		return msg
	}
	engineKey := engineID.Key()
	ls.mu.Lock()
	var clientID jsonrpc.ID
	for k, p := range ls.pending {
		if p.call == c && p.id.Key() == engineKey {
			clientID = p.client
			delete(ls.pending, k)
			break
		}
	}
	ls.mu.Unlock()
	if !clientID.IsValid() {
		return msg
	}
	params["requestId"] = json.RawMessage(clientID.Raw())
	raw, err := json.Marshal(params)
	if err != nil {
		return msg
	}
	out := *msg
	out.Params = raw
	return &out
}

// replyOutcome is what became of a client's answer (deliverReply).
type replyOutcome int

const (
	replyDelivered  replyOutcome = iota // handed to the call or the engine
	replyNotPending                     // no request of this copy awaits it
	replyDropped                        // awaited, but the call's queue of answers is full
)

// deliverReply routes a client's answer to the call that asked.
func (ls *liveSession) deliverReply(msg *jsonrpc.Message) replyOutcome {
	ls.mu.Lock()
	key := msg.ID.Key()
	p, ok := ls.pending[key]
	delete(ls.pending, key)
	ls.mu.Unlock()
	if !ok {
		return replyNotPending
	}
	reply := *msg
	reply.ID = p.id
	if p.call == nil {
		if r, ok := ls.h.engine.(SessionReplier); ok {
			ls.h.survive("Reply", "", func() { r.Reply(ls.ctx, ls.sess, &reply) })
		}
		return replyDelivered
	}
	select {
	case p.call.replies <- &reply:
		return replyDelivered
	default:
		ls.h.observe(ls.ctx, Event{Kind: EventDropped, SessionID: ls.id, Reason: "reply_queue_full"})
		return replyDropped
	}
}

// cancelCall cancels the call with the given request id
// (notifications/cancelled); unknown ids are ignored, as the spec asks. It
// reports whether the id is a call in flight here.
func (ls *liveSession) cancelCall(requestID jsonrpc.ID) bool {
	ls.mu.Lock()
	c := ls.calls[requestID.Key()]
	ls.mu.Unlock()
	if c != nil && c.Request.Method != "initialize" {
		c.cancel()
		c.out.AbortWrite() // a write blocked on its client ends too (wire.Guard)
	}
	return c != nil
}

// inUse reports whether the session has a call in flight or a stream
// attached.
func (ls *liveSession) inUse() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.active > 0
}

// idle reports whether the session has had nothing in flight for d.
func (ls *liveSession) idle(now time.Time, d time.Duration) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.idleLocked(now, d)
}

func (ls *liveSession) idleLocked(now time.Time, d time.Duration) bool {
	return ls.active == 0 && now.Sub(ls.lastUsed) > d
}

// end ends the session on this instance: its calls are cancelled, its
// streams cut, and, when forget is set, its record and events deleted.
func (ls *liveSession) end(ctx context.Context, forget bool) {
	ls.endIf(ctx, forget, nil)
}

// endIf is end if cond (nil: always) holds at the moment the session would
// end, checked under its lock: the janitor ends a session it found idle
// only if no request has taken it up since. It reports whether it ended
// the session.
func (ls *liveSession) endIf(ctx context.Context, forget bool, cond func() bool) bool {
	ls.mu.Lock()
	if ls.ended || (cond != nil && !cond()) {
		ls.mu.Unlock()
		return false
	}
	ls.ended = true
	if ls.release != nil {
		ls.release()
	}
	streams := make([]*output.Stream, 0, len(ls.streams))
	for _, st := range ls.streams {
		streams = append(streams, st)
	}
	// A 2024-11-05 call's answer goes on the event stream: a call the
	// session's end abandons is answered there first (with -32000 when
	// Shutdown abandons it), not after the stream has gone.
	relays := make([]*output.Relay, 0, len(ls.relays))
	for r := range ls.relays {
		relays = append(relays, r)
	}
	unsubscribe := ls.unsubscribe
	ls.unsubscribe = nil
	ls.mu.Unlock()
	if unsubscribe != nil {
		unsubscribe()
	}
	ls.h.observeSession(ls, false)
	ls.stop()
	for _, out := range relays {
		out.Cut()
	}
	ls.standalone.Cut()
	for _, st := range streams {
		st.Cut()
	}
	ls.h.mu.Lock()
	if ls.h.live[ls.id] == ls {
		delete(ls.h.live, ls.id)
	}
	ls.h.mu.Unlock()
	if forget {
		ls.recMu.Lock() // after a save under way (recMu)
		err := ls.h.sessions.Delete(ctx, ls.id)
		ls.recMu.Unlock()
		if err != nil {
			ls.h.warn("mcp: deleting session failed", "session", logval.String(ls.id), "error", logval.Err(err))
		}
	}
	// The default event store is this instance's alone: once the session
	// is not served here, no client can resume its streams here.
	if ls.h.cfg.events != nil && (forget || ls.h.cfg.ownEvents) {
		_ = ls.h.cfg.events.SessionClosed(ctx, ls.id)
	}
	return true
}
