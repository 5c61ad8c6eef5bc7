package auth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpmount/mcpmount/identity"
)

// DefaultAlgorithms returns a fresh copy of the signing algorithm allow-list
// that JWTVerifier uses when JWTOptions.Algorithms is empty: every
// asymmetric JWS algorithm it supports (RS256/384/512, PS256/384/512,
// ES256/384/512, EdDSA). HMAC (HS256, HS384, HS512) and "none" are never
// accepted.
func DefaultAlgorithms() []string {
	return []string{
		"RS256", "RS384", "RS512",
		"PS256", "PS384", "PS512",
		"ES256", "ES384", "ES512",
		"EdDSA",
	}
}

// Defaults used by JWTVerifier for zero JWTOptions fields.
const (
	// DefaultLeeway is the clock skew tolerated on exp, nbf and iat.
	DefaultLeeway = 30 * time.Second
	// DefaultFetchTimeout bounds one request to the JWKS endpoint.
	DefaultFetchTimeout = 10 * time.Second
	// DefaultRefreshInterval is the period of the background JWKS refresh.
	DefaultRefreshInterval = time.Hour
	// DefaultRefreshRateLimit is the minimum time between two JWKS
	// refreshes triggered by tokens (an unknown key ID, or none).
	DefaultRefreshRateLimit = time.Minute
)

// JWTOptions configures a JWTVerifier. Exactly one of JWKSURL and Keys must
// be set.
type JWTOptions struct {
	// Issuer is the issuer identifier of the authorization server; the
	// token's "iss" claim must equal it. Required.
	Issuer string

	// Audience is the canonical URI of this resource (RFC 8707), for
	// example "https://mcp.example.com/mcp"; the token's "aud" claim, a
	// string or an array of strings, must contain it. Required: tokens
	// issued for other resources are never accepted.
	Audience string

	// Algorithms is the allow-list of JWS "alg" values. The zero value
	// means DefaultAlgorithms(). Only asymmetric algorithms are allowed;
	// NewJWTVerifier refuses "none" and the HMAC algorithms.
	Algorithms []string

	// Leeway is the clock skew tolerated when checking exp, nbf and iat.
	// The zero value means DefaultLeeway; a negative value means none.
	Leeway time.Duration

	// JWKSURL is the URL of the authorization server's JSON Web Key Set.
	// It must use https, except on a loopback host (localhost, 127.0.0.1,
	// ::1). The zero value means keys come from Keys instead.
	JWKSURL string

	// Keys are static verification keys by key ID ("kid"). Supported
	// types are *rsa.PublicKey (2048 bits or more), *ecdsa.PublicKey on
	// P-256, P-384 or P-521, and ed25519.PublicKey; private keys of these
	// types are reduced to their public halves. A token without "kid" is
	// tried against every key that fits its algorithm. The zero value
	// means keys come from JWKSURL instead.
	Keys map[string]crypto.PublicKey

	// HTTPClient fetches the JWKS. The zero value means a private client
	// with its own connection pool, closed by Close.
	HTTPClient *http.Client

	// FetchTimeout bounds each JWKS request, including the one made while
	// a request waits for a key with an unknown key ID. The zero value
	// means DefaultFetchTimeout.
	FetchTimeout time.Duration

	// RefreshInterval is the period of the background JWKS refresh. The
	// zero value means DefaultRefreshInterval.
	RefreshInterval time.Duration

	// RefreshRateLimit is the minimum time between two JWKS refreshes
	// triggered by tokens whose key ID is not cached, so that forged key
	// IDs cannot flood the authorization server. A token due a refresh
	// that is allowed within a second waits for it; one that finds the
	// refresh refused gets an error matching ErrUnavailable (503), not
	// ErrInvalidToken, since its key may have been rotated in since the
	// last refresh, with a retry hint of the time until the next refresh
	// is allowed (a second while another request's refresh is in flight).
	// Tokens without a key ID share the limit: one finds a refresh when no
	// cached key fits its algorithm, or when no cached key verifies its
	// signature (the key server may have rotated keys; the token is then
	// tried once more). If the limit refuses that refresh, such a token
	// gets ErrInvalidToken while the last fetch worked, and ErrUnavailable
	// only while the JWKS is unreachable. Tokens whose claims
	// fail (expired, another issuer or audience) are refused before any
	// key lookup and never refresh. The zero value means
	// DefaultRefreshRateLimit.
	RefreshRateLimit time.Duration

	// Logger receives JWKS refresh failures. The zero value means
	// slog.Default(). Tokens are never logged.
	Logger *slog.Logger
}

// JWTVerifier verifies JWT access tokens (RFC 9068 style) signed with an
// asymmetric key of the authorization server. It checks the signature
// against an allow-list of algorithms and a key of a matching type, then
// "iss", "aud", "exp" (required), "nbf" and "iat" (when present), and
// requires a non-empty "sub". Scopes come from "scope" (space-separated
// string) and "scp" (string or array of strings). A token whose JWS header
// has "crit" is refused, since the verifier understands no JWS extension
// (RFC 7515 section 4.1.11).
//
// A JWTVerifier is safe for concurrent use. Call Close to stop its
// background JWKS refresh.
type JWTVerifier struct {
	parser    *jwt.Parser
	validator *jwt.Validator // the claim rules, run once, before the key lookup
	keys      keySource
	ctx       context.Context
	cancel    context.CancelFunc
}

// NewJWTVerifier validates opts and returns a verifier. With a JWKSURL it
// fetches the key set once before returning, bounded by FetchTimeout; a
// failed first fetch is logged, not returned, so that the resource server
// can start while the authorization server is down (requests then get 503
// until a fetch succeeds). ctx is the verifier's lifetime: once it is done
// the verifier is closed, as by Close (the background refresh stops and
// Verify fails with ErrUnavailable, static Keys or not), so pass one that
// lasts as long as the server, not a start-up deadline.
func NewJWTVerifier(ctx context.Context, opts *JWTOptions) (*JWTVerifier, error) {
	if opts == nil {
		return nil, errors.New("auth: new JWT verifier: options are required")
	}
	if opts.Issuer == "" {
		return nil, errors.New("auth: new JWT verifier: Issuer is required")
	}
	if opts.Audience == "" {
		return nil, errors.New("auth: new JWT verifier: Audience is required")
	}
	algs := opts.Algorithms
	if len(algs) == 0 {
		algs = DefaultAlgorithms()
	}
	for _, alg := range algs {
		if !slices.Contains(DefaultAlgorithms(), alg) {
			return nil, fmt.Errorf("auth: new JWT verifier: algorithm %q is not allowed (only asymmetric JWS algorithms are)", alg)
		}
	}
	leeway := opts.Leeway
	switch {
	case leeway == 0:
		leeway = DefaultLeeway
	case leeway < 0:
		leeway = 0
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}

	lifetime, cancel := context.WithCancel(ctx)
	claimRules := []jwt.ParserOption{
		jwt.WithIssuer(opts.Issuer),
		jwt.WithAudience(opts.Audience),
		jwt.WithLeeway(leeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
	}
	v := &JWTVerifier{
		// The parser checks the algorithm and the signature; the claims are
		// checked once, by validator, in the key function (Verify).
		parser:    jwt.NewParser(jwt.WithValidMethods(slices.Clone(algs)), jwt.WithoutClaimsValidation()),
		validator: jwt.NewValidator(claimRules...),
		ctx:       lifetime,
		cancel:    cancel,
	}

	var err error
	switch {
	case opts.JWKSURL != "" && len(opts.Keys) > 0:
		err = errors.New("set either JWKSURL or Keys, not both")
	case opts.JWKSURL != "":
		v.keys, err = newJWKSSource(lifetime, opts, logger)
	case len(opts.Keys) > 0:
		v.keys, err = newStaticSource(opts.Keys)
	default:
		err = errors.New("one of JWKSURL and Keys is required")
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("auth: new JWT verifier: %w", err)
	}
	return v, nil
}

// Close stops the background JWKS refresh and releases idle connections.
// Verify returns an error matching ErrUnavailable afterwards. Close is
// idempotent and always returns nil.
func (v *JWTVerifier) Close() error {
	v.cancel()
	v.keys.close()
	return nil
}

// Verify checks token and returns the identity it carries. Errors match
// ErrInvalidToken when the token is unacceptable and ErrUnavailable when the
// signing key could not be obtained (the JWKS endpoint is unreachable and
// no cached key fits, or the token's key ID is not cached and
// RefreshRateLimit refuses the refresh that could find it) or ctx ended
// first.
func (v *JWTVerifier) Verify(ctx context.Context, token string) (*identity.Info, error) {
	if v.ctx.Err() != nil {
		return nil, Unavailable(0, ErrClosed)
	}
	if token == "" {
		return nil, InvalidToken("empty token", nil)
	}
	claims, kidless, err := v.parse(ctx, token)
	if kidless && errors.Is(err, jwt.ErrTokenSignatureInvalid) {
		// No cached key verified a token that names none: the key server
		// may have rotated keys since the last fetch. Fetched again (as
		// the rate limit allows), the keys get one more try; when the limit
		// refuses, the answer stays 401, since a bad signature is the
		// likelier story for a token that names no key.
		if r, ok := v.keys.(keyRefresher); ok && r.refreshKeys(ctx) {
			claims, _, err = v.parse(ctx, token)
		}
	}
	if err != nil {
		return nil, classifyJWTError(ctx, err)
	}
	return infoFromClaims(claims)
}

// parse verifies token's signature and claims; kidless reports a token
// whose header names no key.
func (v *JWTVerifier) parse(ctx context.Context, token string) (claims jwt.MapClaims, kidless bool, err error) {
	claims = jwt.MapClaims{}
	_, err = v.parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		if err := checkNoCrit(t); err != nil {
			return nil, err
		}
		// Claims no key could make acceptable (expired, another issuer or
		// resource) are refused before the key lookup, so such a token
		// gets 401 whatever its kid, and never makes the JWKS refresh.
		if err := v.validator.Validate(t.Claims); err != nil {
			return nil, err
		}
		_, named := t.Header["kid"]
		kidless = !named
		return v.keys.key(ctx, t)
	})
	return claims, kidless, err
}

// checkNoCrit refuses a token whose JWS header has "crit". RFC 7515
// (section 4.1.11) requires a recipient to reject a JWS whose "crit" lists
// an extension it does not understand, and this verifier understands none
// (not even "b64" of RFC 7797). An empty list is refused too, since RFC 7515
// forbids it. The check runs before any key lookup, so such tokens never
// cause a JWKS refresh. The listed names are not put in the error, which
// may be logged, because they come from the token.
func checkNoCrit(t *jwt.Token) error {
	if _, ok := t.Header["crit"]; ok {
		return InvalidToken("unsupported critical header (crit)",
			errors.New(`JWS header "crit" is present; no critical extension is supported`))
	}
	return nil
}

// classifyJWTError turns a golang-jwt error into an InvalidTokenError with a
// short public description, or passes an UnavailableError through.
func classifyJWTError(ctx context.Context, err error) error {
	var unavailable *UnavailableError
	if errors.As(err, &unavailable) {
		return unavailable
	}
	var invalid *InvalidTokenError
	if errors.As(err, &invalid) {
		return InvalidToken(invalid.Description, err)
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return Unavailable(0, fmt.Errorf("verify token: %w", ctxErr))
	}
	reasons := []struct {
		target      error
		description string
	}{
		{jwt.ErrTokenMalformed, "malformed token"},
		{jwt.ErrTokenSignatureInvalid, "invalid signature or signing algorithm"},
		{jwt.ErrTokenExpired, "token expired"},
		{jwt.ErrTokenNotValidYet, "token not yet valid"},
		{jwt.ErrTokenUsedBeforeIssued, "token issued in the future"},
		{jwt.ErrTokenInvalidIssuer, "wrong issuer"},
		{jwt.ErrTokenInvalidAudience, "token not issued for this resource"},
		{jwt.ErrTokenRequiredClaimMissing, "required claim missing"},
		{jwt.ErrTokenUnverifiable, "token cannot be verified"},
	}
	for _, r := range reasons {
		if errors.Is(err, r.target) {
			return InvalidToken(r.description, err)
		}
	}
	return InvalidToken("invalid token", err)
}

// infoFromClaims builds the identity of a verified token.
func infoFromClaims(claims jwt.MapClaims) (*identity.Info, error) {
	sub, err := claims.GetSubject()
	if err != nil || sub == "" {
		return nil, InvalidToken("required claim missing", errors.New(`claim "sub" is missing or empty`))
	}
	iss, err := claims.GetIssuer()
	if err != nil {
		return nil, InvalidToken("invalid issuer", fmt.Errorf(`read claim "iss": %w`, err))
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return nil, InvalidToken("required claim missing", errors.New(`claim "exp" is missing`))
	}
	scopes, err := scopesFromClaims(claims)
	if err != nil {
		return nil, InvalidToken("invalid scope claim", err)
	}
	return &identity.Info{
		Subject: sub,
		Issuer:  iss,
		Scopes:  scopes,
		Expiry:  exp.Time,
		Claims:  map[string]any(claims),
	}, nil
}

// scopesFromClaims reads "scope" (space-separated string) and "scp"
// (space-separated string or array of strings) and returns their union in
// order of appearance.
func scopesFromClaims(claims jwt.MapClaims) ([]string, error) {
	var scopes []string
	if raw, ok := claims["scope"]; ok {
		s, ok := raw.(string)
		if !ok {
			return nil, fmt.Errorf(`claim "scope" is %T, want string`, raw)
		}
		scopes = append(scopes, strings.Fields(s)...)
	}
	if raw, ok := claims["scp"]; ok {
		switch v := raw.(type) {
		case string:
			scopes = append(scopes, strings.Fields(v)...)
		case []any:
			for _, item := range v {
				s, ok := item.(string)
				if !ok {
					return nil, fmt.Errorf(`claim "scp" holds %T, want string`, item)
				}
				scopes = append(scopes, strings.Fields(s)...)
			}
		default:
			return nil, fmt.Errorf(`claim "scp" is %T, want string or array`, raw)
		}
	}
	return uniqueScopes(scopes), nil
}
