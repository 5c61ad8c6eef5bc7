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

	"github.com/mcpmount/mcpmount/internal/logval"
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
				slog.String("jwks_url", opts.JWKSURL), slog.String("error", logval.Err(err)))
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
	keys, named, err := s.cached(ctx, alg, kid, true)
	if err == nil && !named {
		if err = s.refresh(ctx, kid); err == nil {
			keys, named, err = s.cached(ctx, alg, kid, true)
		}
	}
	switch {
	case err != nil:
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, Unavailable(0, fmt.Errorf("look up signing key: %w", ctxErr))
		}
		var unavailable *UnavailableError
		if errors.As(err, &unavailable) {
			return nil, unavailable
		}
		return nil, Unavailable(0, fmt.Errorf("look up signing key %s: %w", logval.String(kid), err))
	case !named && !s.health.healthy():
		return nil, Unavailable(s.retryAfter(), fmt.Errorf("look up signing key %s: JWKS unreachable", logval.String(kid)))
	case !named:
		return nil, InvalidToken("unknown signing key", fmt.Errorf("look up signing key %s: not in the JWK Set", logval.String(kid)))
	case len(keys.Keys) == 0:
		return nil, InvalidToken("signing key does not match algorithm", fmt.Errorf("no key %s fits algorithm %s", logval.String(kid), alg))
	case len(keys.Keys) == 1:
		return keys.Keys[0], nil
	}
	// Keys of different types may share a key ID (RFC 7517 section 4.5).
	return keys, nil
}

// cached returns the cached keys that may verify alg: with key ID kid if
// byKID, all of them otherwise. named reports whether the cache holds any
// key with that ID (byKID) or any key fitting alg (not byKID): when it is
// false, a refresh may bring one.
func (s *jwksSource) cached(ctx context.Context, alg, kid string, byKID bool) (keys jwt.VerificationKeySet, named bool, err error) {
	all, err := s.cache.KeyReadAll(ctx)
	if err != nil {
		return keys, false, fmt.Errorf("read cached keys: %w", err)
	}
	for _, jwk := range all {
		if byKID && jwk.Marshal().KID != kid {
			continue
		}
		if byKID {
			named = true
		}
		if k, err := usableKey(jwk, alg); err == nil {
			keys.Keys = append(keys.Keys, k)
		}
	}
	return keys, named || len(keys.Keys) > 0, nil
}

// refresh fetches the JWK Set again for a token whose key the cache does
// not hold (kid: its key ID, or "" for a token without one), if the
// refresh rate limit allows, and returns once the fetch is over, whatever
// it brought. When the limit refuses, the key may still have been rotated
// in since the last fetch: that is no proof the token is bad (a 401 would
// make the client discard a good token), so the answer is ErrUnavailable
// with the time until the next refresh is allowed, or a second when a
// refresh is in flight that may bring the key, unless that refresh has
// just brought it. (Tokens whose claims are unacceptable were refused
// before any key lookup.)
func (s *jwksSource) refresh(ctx context.Context, kid string) error {
	if !s.allowRefresh(ctx) {
		busy := s.refreshing.Load() > 0 // before the re-read, so a refresh ending between them is seen
		if kid != "" {
			if _, named, err := s.cached(ctx, "", kid, true); err == nil && named {
				return nil // a concurrent refresh just brought it
			}
		}
		retry := s.retryAfter()
		if busy {
			retry = time.Second
		}
		return Unavailable(retry, fmt.Errorf("look up signing key %s: %w", logval.String(kid), errRefreshLimited))
	}
	// The refresh runs on the verifier's lifetime, bounded by the fetch
	// timeout, not on the caller's context: a caller whose deadline is
	// shorter than the fetch gets its answer in time, while the fetch goes
	// on, fills the cache for the next request, and is not taken for the
	// key server being down.
	done := make(chan struct{})
	go func() {
		// jwkset refreshes on a key ID it does not hold: one with a NUL,
		// which no JWK Set names, for a token without one.
		_, _ = s.refresher.KeyRead(s.lifetime, kid+"\x00")
		// No longer in flight (counted by allowRefresh) before anyone
		// hears of the result: a request right after it must not be told
		// to retry in a second for a refresh that is over.
		s.refreshing.Add(-1)
		close(done)
	}()
	select {
	case <-done:
		if s.lifetime.Err() != nil {
			// Close cut the refresh short: no verdict on the token.
			return Unavailable(0, ErrClosed)
		}
		return nil
	case <-ctx.Done():
		return Unavailable(time.Second, fmt.Errorf("look up signing key %s: %w", logval.String(kid), ctx.Err()))
	}
}

// errRefreshLimited is the cause of a refresh the rate limit refused.
var errRefreshLimited = errors.New("JWKS refresh rate-limited")

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

// keySet returns every cached key that fits alg, for tokens without "kid";
// with none, the JWK Set is fetched again (rate-limited, as for an unknown
// key ID), so that such tokens recover from a key server that was down.
// When the limit refuses and the last fetch worked, the token is refused
// (401), not told to wait (503).
func (s *jwksSource) keySet(ctx context.Context, alg string) (any, error) {
	keys, _, err := s.cached(ctx, alg, "", false)
	if err == nil && len(keys.Keys) == 0 {
		if err = s.refresh(ctx, ""); err == nil {
			keys, _, err = s.cached(ctx, alg, "", false)
		} else if errors.Is(err, errRefreshLimited) && s.health.healthy() {
			// Fetched lately, and no key fits: a token naming no key has
			// less of a claim to a rotation than an unknown key ID.
			err = nil
		}
	}
	switch {
	case err != nil:
		var unavailable *UnavailableError
		if errors.As(err, &unavailable) {
			return nil, unavailable
		}
		return nil, Unavailable(0, err)
	case len(keys.Keys) > 0:
		return keys, nil
	case !s.health.healthy():
		return nil, Unavailable(s.retryAfter(), errors.New("no cached key and JWKS unreachable"))
	}
	return nil, InvalidToken("unknown signing key", fmt.Errorf("no cached key fits algorithm %s", alg))
}

// refreshKeys fetches the JWK Set again, if the rate limit allows, for a
// token without "kid" whose signature no cached key verified: the key
// server may have rotated to a new key. It reports whether a fetch was
// made (a token is then worth verifying again).
func (s *jwksSource) refreshKeys(ctx context.Context) bool {
	return s.refresh(ctx, "") == nil
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
	}
	body, err = usableKeys(body)
	if err != nil {
		t.health.record(false)
		return nil, err
	}
	t.health.record(true)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}

// usableKeys returns the JWK Set body with only the keys that can be read
// (RFC 7517 section 5: members missing, values out of range, a "use" of
// another kind are to be ignored): jwkset would otherwise refuse the whole
// set for one such key, and every token would go unverified. It fails for
// a body that is not a JWK Set (an object with a "keys" array) and for a
// set whose keys are all unreadable.
func usableKeys(body []byte) ([]byte, error) {
	var set struct {
		Keys *[]json.RawMessage `json:"keys"`
	}
	if json.Unmarshal(body, &set) != nil || set.Keys == nil {
		return nil, errors.New(`not a JWK Set: no "keys" array`)
	}
	keys := *set.Keys
	kept := make([]json.RawMessage, 0, len(keys))
	for _, raw := range keys {
		var m jwkset.JWKMarshal
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		if _, err := jwkset.NewJWKFromMarshal(m, jwkset.JWKMarshalOptions{Private: true}, jwkset.JWKValidateOptions{}); err != nil {
			continue
		}
		kept = append(kept, raw)
	}
	switch {
	case len(kept) == len(keys):
		return body, nil
	case len(kept) == 0:
		return nil, fmt.Errorf("none of the %d keys of the JWK Set can be read", len(keys))
	}
	out, err := json.Marshal(struct {
		Keys []json.RawMessage `json:"keys"`
	}{kept})
	if err != nil {
		return nil, fmt.Errorf("rewrite JWK Set: %w", err)
	}
	return out, nil
}

// positiveOr returns d if it is positive and def otherwise.
func positiveOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
