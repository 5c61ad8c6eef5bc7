package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestJWKSKeyRotation(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("old", &k.rsa.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = 20 * time.Millisecond })
	ctx := context.Background()

	oldToken := sign(t, jwt.SigningMethodRS256, k.rsa, "old", validClaims("a"))
	newToken := sign(t, jwt.SigningMethodES256, k.ec, "new", validClaims("a"))

	if _, err := v.Verify(ctx, oldToken); err != nil {
		t.Fatalf("old key: %v", err)
	}
	if _, err := v.Verify(ctx, newToken); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("new kid before rotation: err = %v, want ErrInvalidToken", err)
	}

	// The authorization server rotates: the new key appears, the old one
	// goes away. A token with the new kid triggers a refresh.
	jwks.set(jwkEC("new", &k.ec.PublicKey))
	before := jwks.hits.Load()
	info, err := v.Verify(ctx, newToken)
	if err != nil {
		t.Fatalf("new kid after rotation: %v", err)
	}
	if info.Subject != "user-1" {
		t.Fatalf("subject = %q", info.Subject)
	}
	if jwks.hits.Load() <= before {
		t.Fatal("no JWKS refresh happened")
	}
	// The refresh replaced the cache, so the retired key is gone too.
	if _, err := v.Verify(ctx, oldToken); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("retired kid: err = %v, want ErrInvalidToken", err)
	}
}

func TestJWKSUnknownKIDRefreshIsRateLimited(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = time.Hour })
	start := jwks.hits.Load() // the initial fetch

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i := range 20 {
		tok := sign(t, jwt.SigningMethodRS256, k.rsa, "forged-"+strconv.Itoa(i), validClaims("a"))
		_, err := v.Verify(ctx, tok)
		if i == 0 {
			// The first one refreshes the key set, which lacks its kid.
			if !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("forged kid %d: err = %v, want ErrInvalidToken", i, err)
			}
			continue
		}
		// The others find the refresh refused by the rate limit. A kid
		// not yet refreshed for may be a freshly rotated key, so the
		// verifier cannot call the token invalid: it answers
		// ErrUnavailable (503) with the time until the next refresh,
		// rather than the 401 it used to give, which made clients
		// discard good tokens.
		var un *UnavailableError
		if !errors.As(err, &un) || errors.Is(err, ErrInvalidToken) {
			t.Fatalf("forged kid %d: err = %v, want ErrUnavailable", i, err)
		}
		if un.RetryAfter < time.Hour-time.Minute || un.RetryAfter > time.Hour {
			t.Fatalf("forged kid %d: RetryAfter = %v, want about the hour of the rate limit", i, un.RetryAfter)
		}
	}
	if got := jwks.hits.Load() - start; got != 1 {
		t.Fatalf("forged kids caused %d JWKS fetches, want 1", got)
	}
	// Known keys keep working without any fetch.
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodEdDSA, k.ed, "ed1", validClaims("a"))); err != nil {
		t.Fatalf("known kid: %v", err)
	}
}

func TestJWKSUnreachableAtStart(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close() // nothing listens on this loopback port any more

	v := newJWKSVerifier(t, deadURL, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	token := sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("mcp:read"))

	_, err := v.Verify(ctx, token)
	var un *UnavailableError
	if !errors.As(err, &un) || !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want *UnavailableError", err)
	}
	if un.RetryAfter < time.Second {
		t.Fatalf("RetryAfter = %v", un.RetryAfter)
	}
	if ctx.Err() != nil {
		t.Fatal("Verify outlived its context")
	}
	// Tokens without kid find no cached key either.
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, k.ec, "", validClaims(""))); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("kid-less token: err = %v, want ErrUnavailable", err)
	}

	// Through the middleware: 503 with Retry-After, no challenge.
	srv := httptest.NewServer(RequireBearer(v, defaultOptions(slog.New(slog.DiscardHandler)))(&recordingHandler{}))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, _ := do(t, srv.Client(), req)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("status = %d, Retry-After = %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestJWKSGoesDownAfterStart(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("rsa1", &k.rsa.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = 10 * time.Millisecond })
	jwks.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims(""))); err != nil {
		t.Fatalf("cached key must keep working: %v", err)
	}
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, k.ec, "rotated", validClaims("")))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("new kid while JWKS is down: err = %v, want ErrUnavailable", err)
	}
}

func TestJWKSHangingServerIsBounded(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(release) }) // runs before hang.Close

	v := newJWKSVerifier(t, hang.URL, func(o *JWTOptions) { o.FetchTimeout = 200 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("")))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Verify was not bounded by FetchTimeout")
	}
}

func TestJWKSVerifyHonoursCallerDeadline(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	release := make(chan struct{})
	var slow atomicBool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"keys":[]}`))
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })

	v := newJWKSVerifier(t, srv.URL, nil) // FetchTimeout 10s
	slow.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("")))
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("Verify ignored the caller's deadline")
	}
}

func TestJWTVerifierClose(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshInterval = 10 * time.Millisecond })
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	_, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("")))
	if !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
}

func TestJWTVerifierParentContextEndsRefresh(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	ctx, cancel := context.WithCancel(context.Background())
	v, err := NewJWTVerifier(ctx, &JWTOptions{
		Issuer: testIssuer, Audience: testAudience, JWKSURL: jwks.URL,
		RefreshInterval: 10 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	cancel() // goleak in TestMain checks that the refresh goroutine ends
	if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims(""))); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v, want ErrClosed", err)
	}
	_ = v.Close()
}

func TestJWTVerifierStaticKeys(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	v, err := NewJWTVerifier(context.Background(), &JWTOptions{
		Issuer:   testIssuer,
		Audience: testAudience,
		Keys: map[string]crypto.PublicKey{
			"rsa1": &k.rsa.PublicKey,
			"ec1":  k.ec, // a private key is reduced to its public half
			"ed1":  k.ed.Public(),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()

	for name, tok := range map[string]string{
		"RS256 by kid": sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("")),
		"PS256 by kid": sign(t, jwt.SigningMethodPS256, k.rsa, "rsa1", validClaims("")),
		"ES256 by kid": sign(t, jwt.SigningMethodES256, k.ec, "ec1", validClaims("")),
		"EdDSA no kid": sign(t, jwt.SigningMethodEdDSA, k.ed, "", validClaims("")),
	} {
		if _, err := v.Verify(ctx, tok); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, tok := range map[string]string{
		"unknown kid":           sign(t, jwt.SigningMethodRS256, k.rsa, "zzz", validClaims("")),
		"ES256 under RSA kid":   sign(t, jwt.SigningMethodES256, k.ec, "rsa1", validClaims("")),
		"other key without kid": sign(t, jwt.SigningMethodRS256, k.rsaOther, "", validClaims("")),
		"HS256 with RSA bytes":  sign(t, jwt.SigningMethodHS256, k.rsa.PublicKey.N.Bytes(), "rsa1", validClaims("")),
	} {
		if _, err := v.Verify(ctx, tok); !errors.Is(err, ErrInvalidToken) {
			t.Errorf("%s: err = %v, want ErrInvalidToken", name, err)
		}
	}
}

func TestNewJWTVerifierRefusesBadOptions(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	p224, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]crypto.PublicKey{"k": &k.rsa.PublicKey}
	bad := map[string]*JWTOptions{
		"nil options":      nil,
		"no issuer":        {Audience: testAudience, Keys: keys},
		"no audience":      {Issuer: testIssuer, Keys: keys},
		"no keys":          {Issuer: testIssuer, Audience: testAudience},
		"both key sources": {Issuer: testIssuer, Audience: testAudience, Keys: keys, JWKSURL: "https://as.example.com/jwks"},
		"alg none":         {Issuer: testIssuer, Audience: testAudience, Keys: keys, Algorithms: []string{"RS256", "none"}},
		"HMAC alg":         {Issuer: testIssuer, Audience: testAudience, Keys: keys, Algorithms: []string{"HS256"}},
		"http JWKS":        {Issuer: testIssuer, Audience: testAudience, JWKSURL: "http://as.example.com/jwks"},
		"short RSA key":    {Issuer: testIssuer, Audience: testAudience, Keys: map[string]crypto.PublicKey{"k": &small.PublicKey}},
		"P-224 key":        {Issuer: testIssuer, Audience: testAudience, Keys: map[string]crypto.PublicKey{"k": &p224.PublicKey}},
		"HMAC secret key":  {Issuer: testIssuer, Audience: testAudience, Keys: map[string]crypto.PublicKey{"k": []byte("secret")}},
	}
	for name, opts := range bad {
		if v, err := NewJWTVerifier(context.Background(), opts); err == nil {
			_ = v.Close()
			t.Errorf("%s: NewJWTVerifier accepted it", name)
		}
	}
}

func TestScopesFromClaims(t *testing.T) {
	t.Parallel()
	tests := []struct {
		claims jwt.MapClaims
		want   string
		ok     bool
	}{
		{jwt.MapClaims{}, "", true},
		{jwt.MapClaims{"scope": "a  b a"}, "a b", true},
		{jwt.MapClaims{"scp": []any{"a", "b"}}, "a b", true},
		{jwt.MapClaims{"scp": "a b"}, "a b", true},
		{jwt.MapClaims{"scope": "a", "scp": []any{"b", "a"}}, "a b", true},
		{jwt.MapClaims{"scope": []any{"a"}}, "", false},
		{jwt.MapClaims{"scp": []any{1}}, "", false},
		{jwt.MapClaims{"scp": 3.0}, "", false},
	}
	for _, tc := range tests {
		got, err := scopesFromClaims(tc.claims)
		if (err == nil) != tc.ok {
			t.Errorf("%v: err = %v", tc.claims, err)
			continue
		}
		if joined := joinScopes(got); joined != tc.want {
			t.Errorf("%v: scopes = %q, want %q", tc.claims, joined, tc.want)
		}
	}
}

// TestJWTVerifierRejectsCritHeader checks RFC 7515 section 4.1.11: the
// verifier understands no JWS extension, so a token whose "crit" header
// lists any must be refused even though its signature is good.
func TestJWTVerifierRejectsCritHeader(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	v := newJWKSVerifier(t, f.jwks.URL, nil)
	signWithHeader := func(extra map[string]any) string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, validClaims("mcp:read"))
		tok.Header["kid"] = "rsa1"
		for name, value := range extra {
			tok.Header[name] = value
		}
		s, err := tok.SignedString(f.keys.rsa)
		if err != nil {
			t.Fatalf("sign token: %v", err)
		}
		return s
	}
	for name, tok := range map[string]string{
		"unknown extension":   signWithHeader(map[string]any{"crit": []string{"urn:x-unknown"}, "urn:x-unknown": true}),
		"unencoded payload":   signWithHeader(map[string]any{"crit": []string{"b64"}, "b64": false}),
		"empty critical list": signWithHeader(map[string]any{"crit": []string{}}),
	} {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err := v.Verify(ctx, tok)
			var inv *InvalidTokenError
			if !errors.As(err, &inv) || !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("err = %v, want an InvalidTokenError", err)
			}
			if !strings.Contains(inv.Description, "crit") {
				t.Errorf("description %q does not name the crit header", inv.Description)
			}

			req := f.request(t, http.MethodGet, "/mcp", "")
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, body := do(t, f.srv.Client(), req)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status = %d, want 401; body %s", resp.StatusCode, body)
			}
			if ch := parseChallenge(t, resp.Header.Get("WWW-Authenticate")); ch["error"] != CodeInvalidToken {
				t.Errorf("challenge error = %q, want %q", ch["error"], CodeInvalidToken)
			}
			if f.next.result().called {
				t.Error("next handler ran for a token with a crit header")
			}
		})
	}
	// The same token without crit is fine, so the header alone decides.
	if _, err := v.Verify(context.Background(), signWithHeader(nil)); err != nil {
		t.Fatalf("token without crit: %v", err)
	}
}

// TestJWKSForgedKIDDoesNotStarveRotation checks that a token with a forged
// kid, which uses up the unknown-kid refresh, does not make the verifier
// call a legitimate token signed with a freshly rotated key invalid: the
// refresh it would need is refused by the rate limit, so the verifier cannot
// decide and answers 503 with a retry hint instead of 401.
func TestJWKSForgedKIDDoesNotStarveRotation(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("old", &k.rsa.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, nil) // DefaultRefreshRateLimit
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()

	// The forged kid refreshes the key set, which still lacks it: invalid.
	forged := sign(t, jwt.SigningMethodRS256, k.rsaOther, "forged", validClaims("mcp:read"))
	if _, err := v.Verify(ctx, forged); !errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrUnavailable) {
		t.Fatalf("forged kid: err = %v, want ErrInvalidToken", err)
	}

	// The authorization server rotates in a new key right after.
	jwks.set(jwkRSA("old", &k.rsa.PublicKey), jwkEC("new", &k.ec.PublicKey))
	hits := jwks.hits.Load()
	good := sign(t, jwt.SigningMethodES256, k.ec, "new", validClaims("mcp:read"))
	_, err := v.Verify(ctx, good)
	var un *UnavailableError
	if !errors.As(err, &un) || !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrInvalidToken) {
		t.Fatalf("rotated kid within the rate limit: err = %v, want ErrUnavailable", err)
	}
	if un.RetryAfter < time.Second || un.RetryAfter > DefaultRefreshRateLimit {
		t.Errorf("RetryAfter = %v, want the time until the next refresh (at most %v)", un.RetryAfter, DefaultRefreshRateLimit)
	}
	if got := jwks.hits.Load(); got != hits {
		t.Errorf("the rate limit let %d JWKS fetches through", got-hits)
	}

	// Through the middleware: 503 with Retry-After, not a 401 that makes
	// the client throw the good token away.
	srv := httptest.NewServer(RequireBearer(v, defaultOptions(slog.New(slog.DiscardHandler)))(&recordingHandler{}))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer "+good)
	resp, body := do(t, srv.Client(), req)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status = %d, want 503; body %s", resp.StatusCode, body)
	}
	retry, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || retry < 1 || time.Duration(retry)*time.Second > DefaultRefreshRateLimit {
		t.Errorf("Retry-After = %q, want 1 to %d seconds", resp.Header.Get("Retry-After"), int(DefaultRefreshRateLimit/time.Second))
	}
	if h := resp.Header.Get("WWW-Authenticate"); h != "" {
		t.Errorf("WWW-Authenticate = %q on a 503", h)
	}
}

// TestJWKSUnacceptableClaimsUnknownKID: a token whose claims no key could
// make acceptable (expired, another issuer or resource) is invalid (401)
// whatever its kid, even while unknown-kid refreshes are rate-limited, and
// never makes a refresh.
func TestJWKSUnacceptableClaimsUnknownKID(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = time.Hour })
	ctx := context.Background()
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsaOther, "forged", validClaims("a"))); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("forged kid (refresh allowed): %v", err)
	}
	expired := validClaims("a")
	expired["iat"] = time.Now().Add(-3 * time.Hour).Unix()
	expired["exp"] = time.Now().Add(-2 * time.Hour).Unix()
	otherAudience := validClaims("a")
	otherAudience["aud"] = "https://other.example.com/mcp"
	otherIssuer := validClaims("a")
	otherIssuer["iss"] = "https://other-as.example.com"
	hits := jwks.hits.Load()
	for name, c := range map[string]jwt.MapClaims{"expired": expired, "another resource": otherAudience, "another issuer": otherIssuer} {
		for _, kid := range []string{"rotated", "rsa1"} {
			if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, kid, c)); !errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrUnavailable) {
				t.Errorf("%s, kid %s: %v, want ErrInvalidToken", name, kid, err)
			}
		}
	}
	if jwks.hits.Load() != hits {
		t.Errorf("unacceptable tokens made %d JWKS fetches", jwks.hits.Load()-hits)
	}
}

// TestJWKSConcurrentRotatedKID: while one request fetches the JWK Set for
// a new kid, another with the same kid is told to retry in a second (or
// finds the key), not after the whole rate-limit period.
func TestJWKSConcurrentRotatedKID(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("old", &k.rsa.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = time.Minute })
	ctx := context.Background()
	jwks.set(jwkRSA("old", &k.rsa.PublicKey), jwkEC("new", &k.ec.PublicKey))
	jwks.delay.Store(int64(300 * time.Millisecond))
	token := sign(t, jwt.SigningMethodES256, k.ec, "new", validClaims("a"))
	hits := jwks.hits.Load()
	first := make(chan error, 1)
	go func() { _, err := v.Verify(ctx, token); first <- err }()
	for jwks.hits.Load() == hits {
		time.Sleep(time.Millisecond) // the first request's refresh has reached the server
	}
	_, err := v.Verify(ctx, token)
	var unavailable *UnavailableError
	if err != nil && (!errors.As(err, &unavailable) || unavailable.RetryAfter > time.Second) {
		t.Errorf("second request during the refresh: %v", err)
	}
	if err := <-first; err != nil {
		t.Errorf("first request: %v", err)
	}
}

// TestJWKSRefreshGetsWholeFetchTimeout: a request that waits for the
// unknown-kid rate limit does not spend the refresh's fetch timeout on
// the wait, so a slow but healthy key server is not taken for down.
func TestJWKSRefreshGetsWholeFetchTimeout(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) {
		o.FetchTimeout = time.Second
		o.RefreshRateLimit = 1500 * time.Millisecond
	})
	ctx := context.Background()
	jwks.delay.Store(int64(400 * time.Millisecond))
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsaOther, "forged-1", validClaims("a"))); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("first forged kid: %v", err)
	}
	time.Sleep(200 * time.Millisecond) // the next refresh is allowed in about 900 ms
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsaOther, "forged-2", validClaims("a"))); !errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrUnavailable) {
		t.Errorf("second forged kid, key server slow but healthy: %v, want ErrInvalidToken", err)
	}
}

// TestJWKSGarbageBodyIsUnavailable: a key server that answers 200 with
// something that is not a JWK Set is down for the verifier: a token no
// cached key fits gets ErrUnavailable (503), not ErrInvalidToken.
func TestJWKSGarbageBodyIsUnavailable(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>maintenance</html>"))
	}))
	defer garbage.Close()
	v := newJWKSVerifier(t, garbage.URL, nil)
	ctx := context.Background()
	for _, kid := range []string{"", "rsa1"} {
		if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, kid, validClaims(""))); !errors.Is(err, ErrUnavailable) {
			t.Errorf("kid %q: %v, want ErrUnavailable", kid, err)
		}
	}
}

// TestJWKSRefusedRefreshesTakeNothing: a burst of concurrent tokens with
// an unknown kid, all refused by the rate limit, does not push the next
// refresh further away than the limit's period.
func TestJWKSRefusedRefreshesTakeNothing(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = time.Minute })
	ctx := context.Background()
	token := sign(t, jwt.SigningMethodRS256, k.rsaOther, "rotated", validClaims("a"))
	if _, err := v.Verify(ctx, token); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("first unknown kid (refreshed): %v", err)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for range 50 {
				_, _ = v.Verify(ctx, token)
			}
		})
	}
	wg.Wait()
	_, err := v.Verify(ctx, token)
	var un *UnavailableError
	if !errors.As(err, &un) {
		t.Fatalf("after the burst: %v, want ErrUnavailable", err)
	}
	if un.RetryAfter > time.Minute {
		t.Errorf("after the burst the next refresh is %v away, more than the limit's minute", un.RetryAfter)
	}
}

// TestJWKSRefreshOutlivesImpatientCaller: a caller whose deadline is
// shorter than a slow (but healthy) key server's answer gets 503 in time,
// and the refresh it started still fills the cache for the next request.
func TestJWKSRefreshOutlivesImpatientCaller(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("old", &k.rsa.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, nil)
	jwks.set(jwkRSA("old", &k.rsa.PublicKey), jwkEC("new", &k.ec.PublicKey))
	jwks.delay.Store(int64(600 * time.Millisecond))
	token := sign(t, jwt.SigningMethodES256, k.ec, "new", validClaims("a"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := v.Verify(ctx, token); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("impatient caller: %v, want ErrUnavailable", err)
	}
	hits := jwks.hits.Load()
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := v.Verify(context.Background(), token)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the rotated key never arrived: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if jwks.hits.Load() != hits {
		t.Errorf("%d more fetches; the first caller's refresh should have brought the key", jwks.hits.Load()-hits)
	}
}

// TestJWKSNotASetIsUnavailable: a key server answering 200 with JSON that
// is not a JWK Set (no "keys" array) is down for the verifier, at start
// and on a later refresh, and the keys fetched before stay in use.
func TestJWKSNotASetIsUnavailable(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	token := sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims(""))
	for _, body := range []string{`{}`, `null`, `{"error":"maintenance"}`, `{"keys":{}}`} {
		jwks := newJWKSServer(t)
		doc := []byte(body)
		jwks.doc.Store(&doc)
		v := newJWKSVerifier(t, jwks.URL, nil)
		if _, err := v.Verify(context.Background(), token); !errors.Is(err, ErrUnavailable) {
			t.Errorf("body %s at start: %v, want ErrUnavailable", body, err)
		}
	}
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshInterval = 20 * time.Millisecond })
	if _, err := v.Verify(context.Background(), token); err != nil {
		t.Fatal(err)
	}
	empty := []byte(`{}`)
	jwks.doc.Store(&empty)
	hits := jwks.hits.Load()
	for jwks.hits.Load() < hits+3 {
		time.Sleep(10 * time.Millisecond) // background refreshes get {}
	}
	if _, err := v.Verify(context.Background(), token); err != nil {
		t.Errorf("after refreshes answered {}: %v, want the cached key to still verify", err)
	}
}

// TestJWKSCloseDuringRefresh: Close while a request waits on an
// unknown-kid refresh answers it ErrUnavailable, never a verdict on the
// token.
func TestJWKSCloseDuringRefresh(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	var slow atomic.Bool
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			arrived <- struct{}{}
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"keys":[]}`))
	}))
	t.Cleanup(srv.Close)
	v := newJWKSVerifier(t, srv.URL, nil)
	slow.Store(true)
	token := sign(t, jwt.SigningMethodRS256, k.rsa, "rotated", validClaims(""))
	errc := make(chan error, 1)
	go func() {
		_, err := v.Verify(context.Background(), token)
		errc <- err
	}()
	<-arrived
	_ = v.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, ErrUnavailable) {
			t.Errorf("Verify cut short by Close: %v, want ErrUnavailable", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Verify did not return after Close")
	}
}
