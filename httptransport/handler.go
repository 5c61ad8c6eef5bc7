package httptransport

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpmount/mcpmount/httptransport/internal/output"
	"github.com/mcpmount/mcpmount/internal/logval"
)

// Lock order. A goroutine holding one of these locks takes only locks
// later in the list:
//
//	liveSession.recMu  a session's record writes (record.go)
//	Handler.mu         the sessions, listens and parked streams served here
//	liveSession.mu     a session's calls, streams and server requests
//	output.Stream.mu   one stream's response and events (internal/output)
//	wire.Guard.mu      the write under way on a stream (internal/wire)
//
// The quota, sessionBound, liveSession.queueMu and event store locks are
// leaves: nothing else is taken while they are held.

// Handler is the MCP endpoint: an http.Handler serving every protocol era
// on one URL. Create it with New; it is safe for concurrent use.
type Handler struct {
	engine   Engine
	cfg      config
	out      *output.Config // what its streams and relays share (outputs.go)
	sessions SessionStore
	tag      string         // prefixes this instance's session and stream ids, unique in a shared store
	watch    *instanceWatch // this instance's liveness record, and verdicts on others' (livewatch.go)

	// ctx lives as long as the handler; sessions and calls that outlive
	// their HTTP request derive from it, so Shutdown can end them.
	ctx    context.Context
	cancel context.CancelFunc

	closing   atomic.Bool
	shutdownC chan struct{}
	inflight  drainGroup // requests and calls being served

	calls, streams, sessionQ *quota        // per-principal bounds (limits.go); nil when unbounded
	bound                    *sessionBound // the instance's and each address's sessions (sessionbound.go)
	handshakes               handshakes    // 2025-era initialize requests the engine has not answered yet

	mu      sync.Mutex
	live    map[string]*liveSession        // sessions served by this instance
	listens map[*output.Stream]*Call       // open 2026-07-28 subscriptions/listen streams
	parked  map[*output.Stream]*parkedConn // streams taken over from net/http (park.go)

	janitor periodic // ends idle sessions (janitor.go)

	versionsFor atomic.Pointer[versionsCache] // see versions

	watched sync.Map // *http.Server -> *serverWatch (serverwatch.go)

	logs *logval.Limiter // spaces repeated warnings of a kind (logs.go)

	noFlush       sync.Once    // logs that held streams are refused (flush.go)
	foreignWarned atomic.Int64 // when another instance's session was last logged, since created (foreign.go)
	boundWarned   atomic.Int64 // when a refusal by the session bound was last logged (sessionbound.go)
	created       time.Time
}

// New returns a Handler serving engine with the given options; nil opts
// means defaults. Call Shutdown to end its sessions and streams.
func New(engine Engine, opts *Options) *Handler {
	cfg := newConfig(opts)
	tag := newSessionID()[:instanceTagLen]
	h := &Handler{
		engine:    engine,
		cfg:       cfg,
		bound:     newSessionBound(cfg.maxSessions, cfg.maxSessionsPerAddr),
		shutdownC: make(chan struct{}),
		live:      make(map[string]*liveSession),
		listens:   make(map[*output.Stream]*Call),
		parked:    make(map[*output.Stream]*parkedConn),
		tag:       tag,
		watch:     newInstanceWatch(cfg.liveness, tag, cfg.livenessPeriod),
		created:   time.Now(),
		logs:      logval.NewLimiter(logEvery, logBurst, nil),
	}
	h.out = h.newOutputConfig()
	if opts != nil {
		h.calls, h.streams = newQuota(opts.MaxCallsPerPrincipal), newQuota(opts.MaxStreamsPerPrincipal)
		h.sessionQ = newQuota(opts.MaxSessionsPerPrincipal)
	}
	if opts != nil && opts.Sessions != nil {
		h.sessions = opts.Sessions
	} else {
		h.sessions = NewMemorySessionStore()
	}
	base := context.Background()
	if h.cfg.observer != nil {
		// Sessions' contexts derive from it: an engine's ReportDropped
		// with one reaches the Observer, as with a call's.
		base = context.WithValue(base, observerKey{}, h.cfg.observer)
	}
	h.ctx, h.cancel = context.WithCancel(base)
	return h
}

// ServeHTTP routes a request to its era's handling after the guards that
// every era shares.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.answerCORS(w, r) {
		return
	}
	if !h.inflight.enter() {
		writeRefusal(w, noID, errShuttingDown)
		return
	}
	defer h.inflight.exit()
	if h.cfg.observer != nil {
		var done func()
		w, r, done = h.observeRequest(w, r)
		defer done()
	}
	h.watchServer(r)
	r = trimHeaders(r)
	switch rt := h.routeOf(r); rt.act {
	case actPost:
		h.servePost(w, r, rt.accept)
	case actLegacyPost:
		h.serveLegacyPost(w, r)
	case actLegacyGet:
		h.serveLegacyGet(w, r)
	case actStreamGet:
		h.serveGet(w, r, rt.sid)
	case actDelete:
		h.serveDelete(w, r, rt.sid)
	default:
		if rt.allow != "" {
			w.Header().Set("Allow", rt.allow)
		}
		writeRefusal(w, noID, rt.herr)
	}
}

// servePost reads and classifies a POST body (classify.go) and hands it to
// its era; accept is what its answers may be (routeOf).
func (h *Handler) servePost(w http.ResponseWriter, r *http.Request, accept acceptance) {
	if err := checkContentType(r); err != nil {
		writeRefusal(w, noID, err)
		return
	}
	if !accept.json && !accept.sse {
		writeRefusal(w, noID, errNotAcceptable)
		return
	}
	buf, herr := h.readBody(w, r)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	req, herr := classify(r, buf.Bytes(), h.cfg.maxBatch)
	// Decoding copied what the messages keep: the buffer goes back now,
	// not when a long call or a held stream ends.
	putBuffer(buf)
	if herr != nil {
		writeRefusal(w, noID, herr)
		return
	}
	if h.cfg.rate != nil && !h.admitRate(w, r, req) {
		return
	}
	if req.modern {
		h.serveModern(w, r, req, accept)
		return
	}
	h.serveStreamablePost(w, r, req, accept)
}
