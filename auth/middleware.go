package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/logval"
)

// DefaultRetryAfter is the Retry-After value of a 503 answer when the
// verifier gives no hint of its own.
const DefaultRetryAfter = 30 * time.Second

// Options configures RequireBearer. A nil *Options means all defaults.
type Options struct {
	// ResourceMetadataURL is the absolute URL of this resource's protected
	// resource metadata document (RFC 9728), typically the result of
	// MetadataURL. It goes into every challenge as resource_metadata. It
	// must use https, except on loopback hosts. The zero value omits the
	// parameter, which MCP 2025-06-18 clients need: leave it empty only if
	// the metadata is served at the well-known location instead.
	ResourceMetadataURL string

	// Scopes are required for every request. They are also advertised in
	// the scope parameter of 401 challenges. The zero value requires no
	// scope beyond a valid token.
	Scopes []string

	// MethodScopes are the extra scopes a JSON-RPC method needs, keyed by
	// method name (for example "tools/call" or "resources/read"). The
	// middleware reads the POST body to find the method before the next
	// handler runs. The zero value adds none.
	MethodScopes map[string][]string

	// ToolScopes are the extra scopes a tool needs, keyed by tool name; they
	// apply to "tools/call" requests whose params.name is that tool. The
	// zero value adds none.
	ToolScopes map[string][]string

	// Realm is the optional realm parameter of challenges. The zero value
	// omits it.
	Realm string

	// MatchScope decides whether granted scopes satisfy a required scope,
	// for servers with scope hierarchies. The zero value is
	// ExactScopeMatch.
	MatchScope ScopeMatcher

	// MaxBodyBytes caps how much of a POST body is read to find methods and
	// tool names; a larger body is answered with 413 before the next
	// handler runs. Set it no lower than the transport's own limit. The
	// zero value means DefaultMaxBodyBytes. The body is only read when
	// MethodScopes or ToolScopes are set.
	MaxBodyBytes int64

	// RetryAfter is the Retry-After of a 503 answer when the verifier's
	// UnavailableError has no hint. The zero value means
	// DefaultRetryAfter.
	RetryAfter time.Duration

	// Logger receives one record per rejected request (Debug for a missing
	// token, Info for a bad token or scope, Warn for an unavailable
	// verifier), Info and Warn records at most 10 a minute of each kind,
	// the next one let through saying how many were "suppressed". Values
	// from the request (method, path, remote address, subject, the
	// verifier's error) are logged quoted and cut to 64 bytes (errors to
	// 256). Tokens and query strings are never logged. The zero value means
	// slog.Default().
	Logger *slog.Logger
}

// Validate reports configuration errors: a ResourceMetadataURL that is not
// an absolute https URL (http is allowed on loopback hosts), a realm with
// quotes, backslashes or control characters, a scope that is not a valid
// RFC 6749 scope-token or is offline_access, or a negative limit.
func (o *Options) Validate() error {
	if o == nil {
		return nil
	}
	if o.ResourceMetadataURL != "" {
		if _, err := parseSecureURL(o.ResourceMetadataURL); err != nil {
			return fmt.Errorf("auth: ResourceMetadataURL: %w", err)
		}
	}
	if strings.ContainsAny(o.Realm, "\"\\") || strings.ContainsFunc(o.Realm, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return errors.New("auth: Realm contains a quote, a backslash or a control character")
	}
	if err := checkScopes(o.Scopes); err != nil {
		return fmt.Errorf("auth: Scopes: %w", err)
	}
	for method, scopes := range o.MethodScopes {
		if err := checkScopes(scopes); err != nil {
			return fmt.Errorf("auth: MethodScopes[%q]: %w", method, err)
		}
	}
	for tool, scopes := range o.ToolScopes {
		if err := checkScopes(scopes); err != nil {
			return fmt.Errorf("auth: ToolScopes[%q]: %w", tool, err)
		}
	}
	if o.MaxBodyBytes < 0 {
		return errors.New("auth: MaxBodyBytes is negative")
	}
	if o.RetryAfter < 0 {
		return errors.New("auth: RetryAfter is negative")
	}
	return nil
}

// Challenge returns a challenge with the given error code (one of the Code*
// constants, or empty), description and scopes, filled with the realm and
// resource_metadata of o. Router adapters and handlers use it to answer in
// the same format as the middleware, for example a step-up challenge
// decided by a handler:
//
//	auth.WriteChallenge(w, opts.Challenge(auth.CodeInsufficientScope, "tool needs admin", "admin"))
func (o *Options) Challenge(code, description string, scopes ...string) *Challenge {
	c := &Challenge{Error: code, Description: description, Scopes: uniqueScopes(scopes)}
	if o != nil {
		c.Realm = o.Realm
		c.ResourceMetadata = o.ResourceMetadataURL
	}
	return c
}

// RequireBearer returns middleware that lets a request through only with a
// valid bearer token whose scopes cover the request. Before calling next it
// stores the verified *identity.Info in the request context
// (identity.NewContext). It answers, without calling next:
//
//   - 401 with a plain challenge (resource_metadata and, when Scopes is
//     set, scope; no error code) when the request has no Authorization
//     header, uses another scheme than Bearer, or puts the token only in
//     the query string (never accepted);
//   - 400 invalid_request for two Authorization headers, "Bearer" without
//     a token, or a token with characters RFC 6750 forbids;
//   - 401 invalid_token when the verifier rejects the token;
//   - 503 with Retry-After when the verifier reports ErrUnavailable;
//   - 403 insufficient_scope, listing every scope the request needs, when
//     a required scope is missing;
//   - 413 when the body must be inspected and exceeds MaxBodyBytes.
//
// CORS preflight requests (OPTIONS with Origin and
// Access-Control-Request-Method) pass through without a token; CORS headers
// for them are the business of an outer CORS middleware.
//
// RequireBearer panics if v is nil or opts fails Validate, because both are
// programming errors found at start-up.
func RequireBearer(v Verifier, opts *Options) func(http.Handler) http.Handler {
	if v == nil {
		panic("auth: RequireBearer: nil Verifier")
	}
	if err := opts.Validate(); err != nil {
		panic(fmt.Sprintf("auth: RequireBearer: %v", err))
	}
	g := newGuard(v, opts)
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			g.serve(w, r, next)
		})
	}
}

// guard is the configured middleware state; it is read-only after
// construction.
type guard struct {
	verifier     Verifier
	opts         Options
	scopes       []string
	methodScopes map[string][]string
	toolScopes   map[string][]string
	match        ScopeMatcher
	logger       *slog.Logger
	limit        *logval.Limiter // spaces Info and Warn records of a kind
	peek         bool
	maxBody      int64
	retryAfter   time.Duration
}

func newGuard(v Verifier, opts *Options) *guard {
	g := &guard{verifier: v}
	if opts != nil {
		g.opts = *opts
	}
	g.scopes = uniqueScopes(g.opts.Scopes)
	g.methodScopes = cloneScopeMap(g.opts.MethodScopes)
	g.toolScopes = cloneScopeMap(g.opts.ToolScopes)
	g.match = g.opts.MatchScope
	if g.match == nil {
		g.match = ExactScopeMatch
	}
	g.logger = g.opts.Logger
	if g.logger == nil {
		g.logger = slog.Default()
	}
	g.limit = logval.NewLimiter(logEvery, logBurst, nil)
	g.peek = len(g.methodScopes) > 0 || len(g.toolScopes) > 0
	g.maxBody = g.opts.MaxBodyBytes
	if g.maxBody == 0 {
		g.maxBody = DefaultMaxBodyBytes
	}
	g.retryAfter = positiveOr(g.opts.RetryAfter, DefaultRetryAfter)
	return g
}

func (g *guard) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	if isPreflight(r) {
		next.ServeHTTP(w, r)
		return
	}
	token, err := BearerToken(r)
	if err != nil {
		var reqErr *requestError
		if errors.As(err, &reqErr) {
			g.log(r, slog.LevelInfo, "malformed authorization header", slog.String("reason", reqErr.description))
			WriteChallenge(w, g.opts.Challenge(CodeInvalidRequest, reqErr.description))
			return
		}
		g.log(r, slog.LevelDebug, "no bearer token")
		WriteChallenge(w, g.opts.Challenge("", "", g.scopes...))
		return
	}

	info, err := g.verifier.Verify(r.Context(), token)
	if err == nil && info == nil {
		err = InvalidToken("invalid token", errors.New("verifier returned no identity"))
	}
	if err != nil {
		g.rejectToken(w, r, token, err)
		return
	}

	required := g.scopes
	if g.peek && r.Method == http.MethodPost && r.Body != nil && r.Body != http.NoBody {
		body, err := peekBody(r, g.maxBody)
		if err != nil {
			g.rejectBody(w, r, err)
			return
		}
		required = g.requiredScopes(scanRPC(body))
	}
	for _, s := range required {
		if !g.match(info.Scopes, s) {
			g.log(r, slog.LevelInfo, "insufficient scope",
				slog.String("subject", logval.String(info.Subject)),
				slog.String("required", strings.Join(required, " ")))
			WriteChallenge(w, g.opts.Challenge(CodeInsufficientScope,
				"the token lacks a scope this request needs", required...))
			return
		}
	}

	g.log(r, slog.LevelDebug, "request authorized", slog.String("subject", logval.String(info.Subject)))
	next.ServeHTTP(w, r.WithContext(identity.NewContext(r.Context(), info)))
}

// rejectToken answers a verifier error: 503 for ErrUnavailable, 401
// invalid_token for anything else.
func (g *guard) rejectToken(w http.ResponseWriter, r *http.Request, token string, err error) {
	reason := logval.Bound(redact(err.Error(), token), logval.MaxErrLen)
	if errors.Is(err, ErrUnavailable) {
		retry := g.retryAfter
		var un *UnavailableError
		if errors.As(err, &un) && un.RetryAfter > 0 {
			retry = un.RetryAfter
		}
		g.log(r, slog.LevelWarn, "token verification unavailable", slog.String("error", reason))
		writeUnavailable(w, retry)
		return
	}
	description := "invalid token"
	var invalid *InvalidTokenError
	if errors.As(err, &invalid) && invalid.Description != "" {
		description = redact(invalid.Description, token)
	}
	g.log(r, slog.LevelInfo, "invalid token", slog.String("error", reason))
	WriteChallenge(w, g.opts.Challenge(CodeInvalidToken, description, g.scopes...))
}

// rejectBody answers a body that could not be inspected.
func (g *guard) rejectBody(w http.ResponseWriter, r *http.Request, err error) {
	var maxErr *http.MaxBytesError
	if errors.Is(err, errBodyTooLarge) || errors.As(err, &maxErr) {
		g.log(r, slog.LevelInfo, "request body too large to inspect", slog.Int64("limit", g.maxBody))
		writeJSONError(w, http.StatusRequestEntityTooLarge, errorBody{
			Error: CodeInvalidRequest, Description: "request body too large",
		})
		return
	}
	g.log(r, slog.LevelInfo, "request body unreadable", slog.String("error", logval.Err(err)))
	writeJSONError(w, http.StatusBadRequest, errorBody{
		Error: CodeInvalidRequest, Description: "request body could not be read",
	})
}

// requiredScopes is Scopes plus the scopes of every method and, for
// tools/call, every tool named in calls, without duplicates.
func (g *guard) requiredScopes(calls []rpcCall) []string {
	required := append([]string(nil), g.scopes...)
	for _, c := range calls {
		isToolCall := false
		for _, m := range c.methods {
			required = append(required, g.methodScopes[m]...)
			isToolCall = isToolCall || m == "tools/call"
		}
		if isToolCall {
			for _, name := range c.tools {
				required = append(required, g.toolScopes[name]...)
			}
		}
	}
	return uniqueScopes(required)
}

// Each kind of Info or Warn record is written at most logBurst times per
// logEvery: one is written per rejected request, and a flood of them must
// not become a flood of log lines.
const (
	logEvery = logval.Every
	logBurst = logval.Burst
)

// log writes one record about r, Info and Warn ones as g.limit allows. It
// logs the path, never the query string, which could hold an access_token;
// the request's values go through logval, bounded and quoted.
func (g *guard) log(r *http.Request, level slog.Level, msg string, attrs ...slog.Attr) {
	ctx := r.Context()
	if !g.logger.Enabled(ctx, level) {
		return
	}
	suppressed := 0
	if level >= slog.LevelInfo {
		ok, n := g.limit.Allow(msg)
		if !ok {
			return
		}
		suppressed = n
	}
	attrs = append(attrs,
		slog.String("method", logval.String(r.Method)),
		slog.String("path", logval.String(r.URL.Path)),
		slog.String("remote", logval.String(r.RemoteAddr)))
	if suppressed > 0 {
		attrs = append(attrs, slog.Int("suppressed", suppressed))
	}
	g.logger.LogAttrs(ctx, level, "auth: "+msg, attrs...)
}

// isPreflight reports whether r is a CORS preflight request.
func isPreflight(r *http.Request) bool {
	return r.Method == http.MethodOptions &&
		r.Header.Get("Origin") != "" &&
		r.Header.Get("Access-Control-Request-Method") != ""
}

// redact removes the token, and each of its dot-separated parts, from s,
// in case a verifier put them into an error message.
func redact(s, token string) string {
	if token == "" {
		return s
	}
	s = strings.ReplaceAll(s, token, "[redacted]")
	for part := range strings.SplitSeq(token, ".") {
		if len(part) >= 8 {
			s = strings.ReplaceAll(s, part, "[redacted]")
		}
	}
	return s
}

// cloneScopeMap copies m with its slices, so later changes by the caller do
// not affect a running middleware.
func cloneScopeMap(m map[string][]string) map[string][]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[k] = append([]string(nil), v...)
	}
	return out
}
