package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"
)

// jwksSource serves keys from a remote JWK Set through jwkset: one fetch
// at start, a periodic refresh, and a rate-limited refresh when a token
// names an unknown key ID. It remembers whether the last fetch worked,
// which is how a missing key is told apart from an unreachable key
// server.
//
// The unknown-kid rate limit is applied here, not inside jwkset, whose
// limiter makes a refused request wait up to the fetch timeout and then
// leaves the refresh only what remains of it: a request either refreshes
// at once with the whole fetch timeout, or does not refresh at all.
type jwksSource struct {
	cache      jwkset.Storage  // the fetched set, read from memory
	refresher  jwkset.Storage  // reads like cache, refreshing on a miss
	limiter    *rate.Limiter   // unknown-kid refreshes
	refreshing atomic.Int32    // unknown-kid refreshes in flight
	lifetime   context.Context // the verifier's: ends at Close
	health     *fetchHealth
	transport  *http.Transport // owned, closed by close; nil for a caller's client
}

func newJWKSSource(lifetime context.Context, opts *JWTOptions, logger *slog.Logger) (*jwksSource, error) {
	if _, err := parseSecureURL(opts.JWKSURL); err != nil {
		return nil, fmt.Errorf("JWKSURL: %w", err)
	}
	fetchTimeout := positiveOr(opts.FetchTimeout, DefaultFetchTimeout)
	refreshInterval := positiveOr(opts.RefreshInterval, DefaultRefreshInterval)
	rateLimit := positiveOr(opts.RefreshRateLimit, DefaultRefreshRateLimit)

	s := &jwksSource{
		limiter:  rate.NewLimiter(rate.Every(rateLimit), 1),
		lifetime: lifetime,
		health:   &fetchHealth{},
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

	cache, err := jwkset.NewStorageFromHTTP(opts.JWKSURL, jwkset.HTTPClientStorageOptions{
		Client:                    &client,
		Ctx:                       lifetime,
		HTTPTimeout:               fetchTimeout,
		NoErrorReturnFirstHTTPReq: true, // logged; the verifier starts anyway
		RefreshInterval:           refreshInterval,
		RefreshErrorHandler: func(ctx context.Context, err error) {
			// jwkset cancels ctx before calling this, so the error says
			// whether the fetch was cut short by its caller (a client that
			// left) or failed: unreachable, a bad status, a body that is
			// not a JWK Set (which the transport saw as a 200).
			if !errors.Is(err, context.Canceled) {
				s.health.record(false)
			}
			logger.LogAttrs(ctx, slog.LevelWarn, "auth: JWKS fetch failed",
				slog.String("jwks_url", opts.JWKSURL), slog.String("error", err.Error()))
		},
	})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("start JWKS client: %w", err)
	}
	refresher, err := jwkset.NewHTTPClient(jwkset.HTTPClientOptions{
		HTTPURLs:          map[string]jwkset.Storage{opts.JWKSURL: cache},
		RateLimitWaitMax:  fetchTimeout,                 // the refresh's own deadline
		RefreshUnknownKID: rate.NewLimiter(rate.Inf, 1), // s.limiter decides
	})
	if err != nil {
		s.close()
		return nil, fmt.Errorf("start JWKS client: %w", err)
	}
	s.cache, s.refresher = cache, refresher
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
	jwk, err := s.cache.KeyRead(ctx, kid)
	if errors.Is(err, jwkset.ErrKeyNotFound) {
		jwk, err = s.refreshFor(ctx, kid)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, Unavailable(0, fmt.Errorf("look up signing key: %w", ctxErr))
		}
		var unavailable *UnavailableError
		if errors.As(err, &unavailable) {
			return nil, unavailable
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

// refreshFor fetches the JWK Set again for a key ID not in the cache, if
// the unknown-kid rate limit allows, and looks the key up in it. When the
// limit refuses, the key may still have been rotated in since the last
// fetch: that is no proof the token is bad (a 401 would make the client
// discard a good token), so the answer is ErrUnavailable with the time
// until the next refresh is allowed, or a second when a refresh is in
// flight that may bring the key. (Tokens whose claims are unacceptable
// were refused before any key lookup.)
func (s *jwksSource) refreshFor(ctx context.Context, kid string) (jwkset.JWK, error) {
	if !s.allowRefresh(ctx) {
		busy := s.refreshing.Load() > 0 // before the re-read, so a refresh ending between them is seen
		if jwk, err := s.cache.KeyRead(ctx, kid); err == nil {
			return jwk, nil // a concurrent refresh just brought it
		}
		retry := s.retryAfter()
		if busy {
			retry = time.Second
		}
		return jwkset.JWK{}, Unavailable(retry, fmt.Errorf("look up signing key %q: JWKS refresh rate-limited", kid))
	}
	// The refresh runs on the verifier's lifetime, bounded by the fetch
	// timeout, not on the caller's context: a caller whose deadline is
	// shorter than the fetch gets its answer in time, while the fetch goes
	// on, fills the cache for the next request, and is not taken for the
	// key server being down.
	type found struct {
		jwk jwkset.JWK
		err error
	}
	done := make(chan found, 1)
	go func() {
		jwk, err := s.refresher.KeyRead(s.lifetime, kid)
		// No longer in flight (counted by allowRefresh) before anyone
		// hears of the result: a request right after it must not be told
		// to retry in a second for a refresh that is over.
		s.refreshing.Add(-1)
		done <- found{jwk, err}
	}()
	select {
	case f := <-done:
		if f.err != nil && s.lifetime.Err() != nil {
			// Close cut the refresh short: no verdict on the token.
			return jwkset.JWK{}, Unavailable(0, ErrClosed)
		}
		return f.jwk, f.err
	case <-ctx.Done():
		return jwkset.JWK{}, Unavailable(time.Second, fmt.Errorf("look up signing key %q: %w", kid, ctx.Err()))
	}
}

// maxRefreshWait is how long a request waits for the unknown-kid rate
// limit to allow a refresh, when it will soon; past that it does not wait.
const maxRefreshWait = time.Second

// allowRefresh takes a place in the unknown-kid rate limit, waiting for it
// at most maxRefreshWait (never out of the fetch timeout, which the
// refresh then has whole), and counts the refresh as in flight. A request
// refused takes nothing from the limit: Wait reserves only what it can
// have before its deadline.
func (s *jwksSource) allowRefresh(ctx context.Context) bool {
	wctx, cancel := context.WithTimeout(ctx, maxRefreshWait)
	defer cancel()
	if s.limiter.Wait(wctx) != nil {
		return false
	}
	s.refreshing.Add(1)
	return true
}

// keySet returns every cached key that fits alg, for tokens without "kid".
func (s *jwksSource) keySet(ctx context.Context, alg string) (any, error) {
	all, err := s.cache.KeyReadAll(ctx)
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

// maxJWKSBytes bounds the JWK Set document read from the key server.
const maxJWKSBytes = 1 << 20

// healthTransport records the outcome of every JWKS request, and refuses a
// 200 whose body is not a JWK Set (an object with a "keys" array, RFC 7517
// section 5): a maintenance page or "{}" would otherwise empty the cache
// and make every token look invalid, where the key server is in fact down.
// A refused body fails the fetch, so the cache keeps the keys it had.
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
		return nil, err
	case resp.StatusCode != http.StatusOK:
		t.health.record(false)
		return resp, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxJWKSBytes+1))
	resp.Body.Close()
	switch {
	case err != nil:
		if !errors.Is(req.Context().Err(), context.Canceled) {
			t.health.record(false)
		}
		return nil, fmt.Errorf("read JWK Set: %w", err)
	case len(body) > maxJWKSBytes:
		t.health.record(false)
		return nil, fmt.Errorf("JWK Set larger than %d bytes", maxJWKSBytes)
	case !isJWKSet(body):
		t.health.record(false)
		return nil, errors.New(`not a JWK Set: no "keys" array`)
	}
	t.health.record(true)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// isJWKSet reports whether body is a JSON object with a "keys" array.
func isJWKSet(body []byte) bool {
	var set struct {
		Keys *[]json.RawMessage `json:"keys"`
	}
	return json.Unmarshal(body, &set) == nil && set.Keys != nil
}

// positiveOr returns d if it is positive and def otherwise.
func positiveOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
