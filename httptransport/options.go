package httptransport

import (
	"log/slog"
	"net/netip"
	"strings"
	"time"
)

// Options configures a Handler. A nil *Options, and the zero value of every
// field, selects the documented default.
type Options struct {
	// MaxBodyBytes bounds a POST body. Larger bodies get 413 and a -32600
	// error. Zero means 4 MiB; a negative value removes the limit (not
	// recommended: an unbounded body is a memory-exhaustion vector).
	MaxBodyBytes int64

	// MaxBatchMessages bounds the messages of a 2025-03-26 JSON-RPC batch.
	// A larger batch gets 400 and one -32600 error before any of its
	// members is decoded or run: each member costs a decoded message and
	// an answer, so a body of tiny invalid members would otherwise cost the
	// server hundreds of times its size. Zero means 100; negative means no
	// bound.
	MaxBatchMessages int

	// AllowedOrigins lists the browser origins (scheme://host[:port]) that
	// may call the endpoint, compared as browsers send them (scheme and
	// host in any case, a default port or a trailing slash make no
	// difference). A request whose Origin header is present and not
	// allowed gets 403. Zero means: origins on localhost, 127.0.0.1 and
	// [::1], and the request's own origin (same Host), are allowed. The
	// same-Host rule stops nothing in a DNS rebinding attack (the attacker's
	// page and Host agree), so on a server that is local in fact but does
	// not listen on a loopback address (in a container whose port is
	// published on 127.0.0.1, say), list the origins. An entry "*" allows
	// every origin and also turns off the Host check of AllowedHosts (any
	// site may call then, so rebinding gains nothing); use it only behind
	// other protection.
	AllowedOrigins []string

	// AllowedHosts lists extra Host header values that a server listening
	// on a loopback address accepts, compared whole but in any case:
	// "myapp.test" admits Host: myapp.test only, list "myapp.test:8080"
	// for that port. Requests to a loopback listener with any other Host
	// get 403, which defeats DNS rebinding. Listeners on other addresses
	// do not check Host (see AllowedOrigins).
	AllowedHosts []string

	// Stateless serves 2025-era clients without sessions: initialize mints
	// no Mcp-Session-Id and every request is served on its own, so any
	// instance behind a load balancer can answer any request. The GET
	// stream, DELETE, resumability and server-to-client requests need
	// sessions and are unavailable. An Mcp-Session-Id on a POST is
	// ignored, and a call ends when its POST does (no session could cancel
	// or resume it). 2026-07-28 requests are always stateless whatever
	// this says.
	Stateless bool

	// RequireSessionID, off by default, serves every client as a
	// Streamable HTTP client that keeps its session: a 2025-era request
	// other than initialize without Mcp-Session-Id gets 400 (spec
	// 2025-11-25 basic/transports#session-management, for servers that
	// require sessions), and so does a GET without one that names a
	// 2025-era version. Off, clients the spec's Streamable HTTP rules do not
	// describe are served too: a POST whose Accept does not name
	// text/event-stream is a plain JSON-RPC client's, answered with JSON
	// only, with 204 where a Streamable HTTP client gets 202, and served on
	// its own, as with Stateless, when it sends no session id; a GET without
	// a session id that accepts text/event-stream opens a 2024-11-05 event
	// stream, whatever MCP-Protocol-Version it names. Ignored with
	// Stateless, which mints no session ids to require.
	RequireSessionID bool

	// Sessions stores 2025-era and 2024-11-05 sessions. Nil means an
	// in-memory store owned by the handler; pass a shared store to let a
	// session be served by any instance. A store passed here is taken as
	// shared: each request checks the session's record, so one deleted or
	// expired on another instance ends here too (404), and an idle session
	// is only dropped from this instance, its record left to expire. Each
	// call to a store passed here has 5 seconds. Past that, a request for
	// a session this instance does not serve yet gets 503 with
	// Retry-After, and a DELETE gets 503 and leaves the session as it was;
	// a touch or save for a session served here is logged and the request
	// answered; an initialize gets 503 and no Mcp-Session-Id, a 2024-11-05
	// GET 500.
	// A store passed here that also implements SessionRelay carries, to
	// the instance concerned, what a client POSTs about a call running on
	// another (its answer to a server-to-client request,
	// notifications/cancelled), a session's own messages to its GET stream,
	// and 2024-11-05 POSTs to their event stream; without it route by
	// session (sticky sessions). One that also implements SessionRefresher
	// reads a session's record in one round trip at each request; one that
	// implements Liveness lets the other instances answer for this one's
	// calls and streams if it stops (LivenessPeriod).
	Sessions SessionStore

	// LivenessPeriod is how soon, with a shared store that implements
	// Liveness, the other instances take this one for stopped once it
	// stops renewing its liveness record (it renews it three times a
	// period, each renewal lasting a period): within twice the period,
	// a client resuming the stream of a call this instance was running
	// gets a -32000 error for the call, "the instance serving this call
	// stopped" (see Liveness for the rest). Zero means 5 seconds, so 10
	// seconds at most; negative keeps no record, and such a call is never
	// answered.
	LivenessPeriod time.Duration

	// SessionIdleTimeout ends a session that has had no request and no
	// open stream for this long. Zero means 10 minutes; negative means
	// sessions never expire.
	SessionIdleTimeout time.Duration

	// HandshakeTimeout bounds how long a 2025-era initialize waits for the
	// engine's answer. Past it the client gets a -32000 error, no session
	// is opened and its places in the session bounds (MaxSessions,
	// MaxSessionsPerAddress) are free again; until then a pending
	// handshake holds them, and may be ended to make room for a new
	// session as an idle session may. Zero means 10 seconds; negative
	// means no deadline.
	HandshakeTimeout time.Duration

	// Events stores the events of 2025-era session streams so a client
	// can resume a dropped stream with Last-Event-ID. Nil means a bounded
	// in-memory store (see NewMemoryEventStore); use DisableResumability
	// to turn resumability off. Each call to a store passed here (an
	// append, a replay, forgetting a session's events) has 5 seconds, as a
	// stream or a request waits on it, and Shutdown cancels those still
	// running at its deadline. An append is not cancelled by the end of its
	// session: the session's events are forgotten after it. A store that
	// implements BatchEventStore gets the appends under way at once in
	// batches.
	Events EventStore

	// DisableResumability turns off event ids, priming events and
	// Last-Event-ID replay for 2025-era sessions.
	DisableResumability bool

	// RetryInterval is the reconnection delay sent in the SSE "retry"
	// field of the priming event to 2025-11-25 clients. Zero sends none.
	RetryInterval time.Duration

	// KeepAlive is the interval of SSE comment lines on quiet streams, so
	// proxies and clients do not time them out. Zero means 15 seconds;
	// negative disables keep-alives.
	KeepAlive time.Duration

	// HeaderFlushDelay is how long a POST may run without sending anything
	// before its SSE stream opens (status, headers, a comment), for clients
	// and proxies with a first-byte timeout; a POST whose client takes only
	// JSON has the server's WriteTimeout lifted then instead. Zero means 1
	// second; negative waits for the first keep-alive. See the package
	// doc's "Streams and time" for what an engine error returned later
	// becomes.
	HeaderFlushDelay time.Duration

	// NotificationFlushDelay is how long a notification written to a
	// call's SSE stream may wait in the response's buffer for the messages
	// after it: a burst (progress, log messages, then the answer) reaches
	// the client in one write and flush, not one each, which on a loopback
	// benchmark halves the time of a call sending ten progress
	// notifications. A request to the client, the answer and keep-alives
	// flush at once, with whatever waits before them; so does a stream that
	// ends or detaches. Held streams (GET, listen, 2024-11-05) flush every
	// message at once. Zero means 1 millisecond; negative flushes each
	// notification at once.
	NotificationFlushDelay time.Duration

	// BodyTimeout bounds the wait for a POST's body, from when the handler
	// starts reading it, so that a server whose only timeout is
	// ReadHeaderTimeout (as in the README) is not held by a client sending
	// its body slowly; the http.Server's ReadTimeout, if shorter, still
	// wins. The handler sets the read deadline with
	// http.ResponseController and lifts it once the body is in, so a long
	// call or held stream is never cut by it. A body not in whole by then
	// gets 408 with a -32600 JSON-RPC error, and an HTTP/1.x connection is
	// closed. Zero means 30 seconds; negative means no bound but the
	// server's ReadTimeout.
	BodyTimeout time.Duration

	// WriteTimeout bounds each write on a stream. The server's own
	// http.Server.WriteTimeout is lifted for streams, so long-lived
	// streams survive it; this per-write deadline still drops a client
	// that stops reading. Zero means 30 seconds; negative means none.
	WriteTimeout time.Duration

	// DisableHijack keeps every held stream on the handler's goroutine.
	// By default a held stream on an HTTP/1.x connection (a 2026-07-28
	// listen the engine holds with ErrHold, a 2025-era GET stream, a
	// 2024-11-05 event stream) is taken over from net/http once its
	// headers are out, which cuts its memory to about a quarter: the
	// socket, the stream and one small goroutine. http.Server.Shutdown
	// ends such streams too, but without waiting for them (the handler
	// registers with RegisterOnShutdown, whose functions run on their
	// own): call Handler.Shutdown first to end them in order.
	// http.Server.Close does not close them, as with any hijacked
	// connection. Middleware that counts bytes written or times requests
	// sees a taken-over stream end when it is taken over.
	DisableHijack bool

	// MaxCallsPerPrincipal bounds the calls one principal (the caller's
	// identity, see package identity; unauthenticated callers count as one
	// principal) has in flight on this instance: a POST whose requests
	// would pass it gets 429 with Retry-After, and nothing of it is
	// served. A call's place is free before its answer goes out, so a
	// client making one call at a time is never refused (a 2024-11-05
	// call's answer goes out on its session's one event stream, and the
	// place is free when that answer's write begins, not while it waits
	// behind another); a cancelled call
	// keeps its place until the engine has stopped it, so that cancelling
	// cannot get a principal past the bound. Zero means no bound.
	MaxCallsPerPrincipal int

	// MaxStreamsPerPrincipal bounds the held streams (2026-07-28 listens,
	// 2025-era GET streams, 2024-11-05 event streams) one principal has
	// open on this instance; more get 429 with Retry-After. A stream's
	// place is free before the client can see it end (a listen's final
	// result, a server-side disconnect), so a client reopening it at once
	// is served. Zero means no bound.
	MaxStreamsPerPrincipal int

	// MaxSessionsPerPrincipal bounds the 2025-era sessions one principal
	// has open on this instance through initialize (a session another
	// instance created and this one serves, from a shared store, does not
	// count): another initialize gets 429 with Retry-After, and the engine
	// sees nothing of it. A session's place is free once it ends here
	// (DELETE, before its answer; the idle timeout). 2024-11-05 sessions
	// live as long as their event stream, which MaxStreamsPerPrincipal
	// bounds. Zero means no bound.
	MaxSessionsPerPrincipal int

	// MaxSessions bounds the 2025-era and 2024-11-05 sessions this
	// instance serves at once, whoever opened them (one taken up from a
	// shared store counts too). Zero means 10,000; negative means no bound.
	// At the bound the session idle the longest (nothing in flight, no
	// stream attached) is ended, as the idle timeout would end it, to make
	// room; when none is idle, initialize (or the GET opening a 2024-11-05
	// session) gets 503 with Retry-After. An idle session costs about
	// 3.4 KiB and no goroutine through adapters/gosdk.
	MaxSessions int

	// MaxSessionsPerAddress bounds the sessions that unauthenticated
	// callers (no identity in the request's context, see package identity)
	// open from one client address, IPv6 addresses counted by their /64,
	// as MaxSessions bounds all of them: at the bound that address's own
	// longest idle session makes room, or the request gets 503. Behind a
	// reverse proxy every client has the proxy's address unless
	// TrustedProxies names it. Zero means 1,000; negative means no bound.
	MaxSessionsPerAddress int

	// TrustedProxies lists the reverse proxies (addresses or CIDR prefixes,
	// "10.0.0.0/8", "::1") whose X-Forwarded-For header names the client's
	// address for MaxSessionsPerAddress: the address right of which only
	// trusted proxies stand. Empty means the connection's peer address is
	// the client's, and X-Forwarded-For is never read.
	TrustedProxies []string

	// MaxStreamDuration ends a held stream after this long, less a
	// random tenth at most so that streams opened together do not all
	// reconnect at once: a listen with its final result, a 2025-era GET stream as if the connection
	// dropped (the client reconnects, and resumes with Last-Event-ID), a
	// 2024-11-05 event stream with its session. Zero means no bound.
	MaxStreamDuration time.Duration

	// StreamsOutliveTokens keeps held streams open past the expiry of the
	// credential that opened them (identity.Info.Expiry). By default such
	// a stream ends when the credential expires, as MaxStreamDuration ends
	// it, so that the client comes back with a fresh token.
	StreamsOutliveTokens bool

	// Logger receives the transport's logs. Nil means slog.Default().
	// Warnings and errors a request can cause are written at most 10 a
	// minute of each kind, the next one let through saying how many were
	// "suppressed"; values from a request (session ids, method names) are
	// logged quoted and cut to 64 bytes, errors to 256.
	Logger *slog.Logger

	// LegacyEndpoint is the URL (absolute, or absolute path) that the
	// 2024-11-05 endpoint event names for the client's POSTs, without the
	// query. Empty means the URL of the GET that opened the stream, as the
	// client sent it, which is right under any router prefix or
	// http.StripPrefix because the request URI is never rewritten there,
	// under the request's X-Forwarded-Prefix when it has one (a plain
	// absolute path), for a reverse proxy that strips a prefix and says so.
	// Set it when a proxy strips a prefix without saying so, or sets
	// X-Forwarded-Prefix without stripping it (the header is taken from
	// any client; it names the endpoint only to the client that sent it).
	LegacyEndpoint string

	// Observer watches the transport's calls, sessions, held streams,
	// refusals and drops, for traces and metrics (see Observer and
	// package github.com/mcpmount/mcpmount/otelmcp). Nil means none, at no
	// cost.
	Observer Observer

	// RateLimit bounds the rate of each principal's JSON-RPC requests
	// (see RateLimit). Nil means no bound.
	RateLimit *RateLimit
}

// config is Options with the defaults applied.
type config struct {
	maxBody          int64
	maxBatch         int
	allowedOrigins   map[string]bool
	anyOrigin        bool
	allowedHosts     map[string]bool
	stateless        bool
	requireSessionID bool         // Options.RequireSessionID, unless Stateless
	sharedSessions   bool         // Options.Sessions set: other instances may share it
	relay            SessionRelay // Options.Sessions, if shared and it implements SessionRelay
	liveness         Liveness     // Options.Sessions, if it implements Liveness and LivenessPeriod > 0
	livenessPeriod   time.Duration
	idleTimeout      time.Duration
	handshakeTimeout time.Duration
	events           EventStore
	ownEvents        bool // events is the default in-memory store: this instance's alone
	retry            time.Duration
	keepAlive        time.Duration
	headerFlushDelay time.Duration
	notifyDelay      time.Duration
	writeTimeout     time.Duration
	bodyTimeout      time.Duration
	logger           *slog.Logger
	legacyEndpoint   string
	disableHijack    bool

	maxStreamDuration    time.Duration
	streamsOutliveTokens bool
	maxSessions          int
	maxSessionsPerAddr   int
	trustedProxies       []netip.Prefix
	storeTimeout         time.Duration // see withStore; tests shorten it
	observer             Observer      // Options.Observer
	rate                 *rateLimiter  // Options.RateLimit; nil when unbounded (ratelimit.go)
}

func newConfig(o *Options) config {
	if o == nil {
		o = &Options{}
	}
	c := config{
		maxBody:          orDefault(o.MaxBodyBytes, 4<<20),
		maxBatch:         orDefault(o.MaxBatchMessages, 100),
		stateless:        o.Stateless,
		requireSessionID: o.RequireSessionID && !o.Stateless,
		sharedSessions:   o.Sessions != nil,
		idleTimeout:      orDefault(o.SessionIdleTimeout, 10*time.Minute),
		handshakeTimeout: orDefault(o.HandshakeTimeout, 10*time.Second),
		livenessPeriod:   orDefault(o.LivenessPeriod, 5*time.Second),
		events:           o.Events,
		retry:            o.RetryInterval,
		keepAlive:        orDefault(o.KeepAlive, 15*time.Second),
		headerFlushDelay: orDefault(o.HeaderFlushDelay, time.Second),
		notifyDelay:      orDefault(o.NotificationFlushDelay, time.Millisecond),
		writeTimeout:     orDefault(o.WriteTimeout, 30*time.Second),
		bodyTimeout:      orDefault(o.BodyTimeout, 30*time.Second),
		logger:           o.Logger,
		legacyEndpoint:   o.LegacyEndpoint,
		disableHijack:    o.DisableHijack,

		maxStreamDuration:    o.MaxStreamDuration,
		streamsOutliveTokens: o.StreamsOutliveTokens,
		maxSessions:          orDefault(o.MaxSessions, 10_000),
		maxSessionsPerAddr:   orDefault(o.MaxSessionsPerAddress, 1_000),
		storeTimeout:         defaultStoreTimeout,
		observer:             o.Observer,
		rate:                 newRateLimiter(o.RateLimit),
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	var bad []string
	c.trustedProxies, bad = parseTrustedProxies(o.TrustedProxies)
	if len(bad) > 0 {
		c.logger.Warn("mcp: Options.TrustedProxies entries that are neither an address nor a CIDR prefix are ignored", "entries", bad)
	}
	if r, ok := o.Sessions.(SessionRelay); ok {
		c.relay = r
	}
	if l, ok := o.Sessions.(Liveness); ok && c.livenessPeriod > 0 {
		c.liveness = l
	}
	c.allowedOrigins, c.anyOrigin = originSet(o.AllowedOrigins)
	c.allowedHosts = make(map[string]bool)
	for _, h := range o.AllowedHosts {
		c.allowedHosts[strings.ToLower(h)] = true
	}
	if c.events == nil && !o.DisableResumability && !o.Stateless {
		c.events, c.ownEvents = NewMemoryEventStore(evictHook(o.Observer)), true
	}
	if o.DisableResumability {
		c.events = nil
	}
	return c
}

// originSet is Options.AllowedOrigins as compared (nil when empty), and
// whether it lists "*".
func originSet(origins []string) (set map[string]bool, star bool) {
	if len(origins) == 0 {
		return nil, false
	}
	set = make(map[string]bool)
	for _, origin := range origins {
		star = star || origin == "*"
		set[normalOrigin(origin)] = true
	}
	return set, star
}

// orDefault returns def for zero, and zero (meaning "off") for negatives.
func orDefault[T int | int64 | time.Duration](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
}
