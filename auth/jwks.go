package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// jwksSource serves keys from a remote JWK Set through keyfunc/jwkset: one
// fetch at start, a periodic refresh, and a rate-limited refresh when a
// token names an unknown key ID. It remembers whether the last fetch
// worked, which is how a missing key is told apart from an unreachable
// key server.
type jwksSource struct {
	storage   jwkset.Storage
	limiter   *rate.Limiter
	health    *fetchHealth
	transport *http.Transport // owned, closed by close; nil for a caller's client
}

func newJWKSSource(lifetime context.Context, opts *JWTOptions, logger *slog.Logger) (*jwksSource, error) {
	if _, err := parseSecureURL(opts.JWKSURL); err != nil {
		return nil, fmt.Errorf("JWKSURL: %w", err)
	}
	fetchTimeout := positiveOr(opts.FetchTimeout, DefaultFetchTimeout)
	refreshInterval := positiveOr(opts.RefreshInterval, DefaultRefreshInterval)
	rateLimit := positiveOr(opts.RefreshRateLimit, DefaultRefreshRateLimit)

	s := &jwksSource{
		limiter: rate.NewLimiter(rate.Every(rateLimit), 1),
		health:  &fetchHealth{},
	}
	var client http.Client
	if opts.HTTPClient != nil {
		client = *opts.HTTPClient
	} else {
		s.transport = http.DefaultTransport.(*http.Transport).Clone()
		client.Transport = s.transport
	}
	if client.Timeout == 0 {
		client.Timeout = fetchTimeout
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	client.Transport = &healthTransport{base: base, health: s.health}

	kf, err := keyfunc.NewDefaultOverrideCtx(lifetime, []string{opts.JWKSURL}, keyfunc.Override{
		Client:           &client,
		HTTPTimeout:      fetchTimeout,
		RateLimitWaitMax: fetchTimeout,
		RefreshInterval:  refreshInterval,
		RefreshErrorHandlerFunc: func(jwksURL string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				if !errors.Is(ctx.Err(), context.Canceled) {
					s.health.record(false)
				}
				logger.LogAttrs(ctx, slog.LevelWarn, "auth: JWKS fetch failed",
					slog.String("jwks_url", jwksURL), slog.String("error", err.Error()))
			}
		},
		RefreshUnknownKID: s.limiter,
	})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("start JWKS client: %w", err)
	}
	s.storage = kf.Storage()
	return s, nil
}

func (s *jwksSource) key(ctx context.Context, t *jwt.Token) (any, error) {
	alg := t.Method.Alg()
	kid, hasKID, err := tokenKID(t)
	if err != nil {
		return nil, err
	}
	if !hasKID {
		return s.keySet(ctx, alg)
	}
	jwk, err := s.storage.KeyRead(ctx, kid)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, Unavailable(0, fmt.Errorf("look up signing key: %w", ctxErr))
		}
		if !errors.Is(err, jwkset.ErrKeyNotFound) {
			// jwkset reports ErrKeyNotFound once its lookup, refresh
			// included, has run; the in-memory cache fails in no other
			// way, so this is the rate limit on unknown-kid refreshes
			// refusing the refresh. The key may have been rotated in
			// since the last refresh: that is no proof the token is bad,
			// and a 401 would make the client discard a good token.
			return nil, Unavailable(s.retryAfter(), fmt.Errorf("look up signing key, JWKS refresh rate-limited: %w", err))
		}
		if !s.health.healthy() {
			return nil, Unavailable(s.retryAfter(), fmt.Errorf("look up signing key, JWKS unreachable: %w", err))
		}
		return nil, InvalidToken("unknown signing key", fmt.Errorf("look up signing key: %w", err))
	}
	key, err := usableKey(jwk, alg)
	if err != nil {
		return nil, InvalidToken("signing key does not match algorithm", err)
	}
	return key, nil
}

// keySet returns every cached key that fits alg, for tokens without "kid".
func (s *jwksSource) keySet(ctx context.Context, alg string) (any, error) {
	all, err := s.storage.KeyReadAll(ctx)
	if err != nil {
		return nil, Unavailable(0, fmt.Errorf("read cached keys: %w", err))
	}
	var set jwt.VerificationKeySet
	for _, jwk := range all {
		if k, err := usableKey(jwk, alg); err == nil {
			set.Keys = append(set.Keys, k)
		}
	}
	if len(set.Keys) > 0 {
		return set, nil
	}
	if !s.health.healthy() {
		return nil, Unavailable(s.retryAfter(), errors.New("no cached key and JWKS unreachable"))
	}
	return nil, InvalidToken("unknown signing key", fmt.Errorf("no cached key fits algorithm %s", alg))
}

// usableKey returns the public key of jwk if the JWK may verify alg.
func usableKey(jwk jwkset.JWK, alg string) (any, error) {
	m := jwk.Marshal()
	if m.USE != "" && m.USE != jwkset.UseSig {
		return nil, fmt.Errorf("key use is %q, want %q", m.USE, jwkset.UseSig)
	}
	if a := m.ALG.String(); a != "" && a != alg {
		return nil, fmt.Errorf("key is for algorithm %s, token uses %s", a, alg)
	}
	key := publicKey(jwk.Key())
	if err := checkKeyForAlg(alg, key); err != nil {
		return nil, err
	}
	return key, nil
}

// retryAfter is the time until the rate limiter allows the next refresh
// for an unknown key ID, at least one second.
func (s *jwksSource) retryAfter() time.Duration {
	tokens := s.limiter.TokensAt(time.Now())
	if tokens >= 1 {
		return time.Second
	}
	wait := time.Duration(math.Ceil((1 - tokens) / float64(s.limiter.Limit()) * float64(time.Second)))
	return max(wait, time.Second)
}

func (s *jwksSource) close() {
	if s.transport != nil {
		s.transport.CloseIdleConnections()
	}
}

// fetchHealth records whether the most recent JWKS fetch succeeded.
type fetchHealth struct {
	mu sync.Mutex
	ok bool
}

func (h *fetchHealth) record(ok bool) {
	h.mu.Lock()
	h.ok = ok
	h.mu.Unlock()
}

func (h *fetchHealth) healthy() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ok
}

// healthTransport records the outcome of every JWKS request. A body that
// later fails to decode is reported through the refresh error handler,
// which runs after this and overrides the success.
type healthTransport struct {
	base   http.RoundTripper
	health *fetchHealth
}

func (t *healthTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	switch {
	case err != nil:
		if !errors.Is(req.Context().Err(), context.Canceled) {
			t.health.record(false)
		}
	case resp.StatusCode != http.StatusOK:
		t.health.record(false)
	default:
		t.health.record(true)
	}
	return resp, err
}

// positiveOr returns d if it is positive and def otherwise.
func positiveOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
