package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TestJWKSSameKIDDifferentKeyTypes: RFC 7517 section 4.5 allows keys
// of different "kty" in one JWK Set to share a "kid" ("One example in which
// different keys might use the same kid value is if they have different kty
// values but are considered to be equivalent alternatives"). A token signed
// with the EC key of such a pair must verify.
func TestJWKSSameKIDDifferentKeyTypes(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("k1", &k.rsa.PublicKey), jwkEC("k1", &k.ec.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, nil)
	ctx := context.Background()
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, "k1", validClaims("a"))); err != nil {
		t.Fatalf("RS256 with shared kid: %v", err)
	}
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, k.ec, "k1", validClaims("a"))); err != nil {
		t.Fatalf("ES256 with shared kid: %v (the EC key of the pair is never tried)", err)
	}
}

// flakyJWKS answers 503 until up is set, then serves keys.
func newFlakyJWKS(t *testing.T, keys ...map[string]any) (*jwksServer, *atomic.Bool) {
	t.Helper()
	up := &atomic.Bool{}
	s := &jwksServer{}
	s.set(keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		if !up.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(*s.doc.Load())
	}))
	t.Cleanup(s.Close)
	return s, up
}

// TestJWKSKidlessTokenRecoversAfterOutage: when the first fetch fails,
// requests get 503 until a fetch succeeds; a token without "kid" makes the
// verifier fetch again (rate-limited, as an unknown kid does), so once the
// authorization server is back it verifies, without waiting for the hourly
// background refresh (it once did).
func TestJWKSKidlessTokenRecoversAfterOutage(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks, up := newFlakyJWKS(t, jwkEC("ec1", &k.ec.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = 10 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tok := sign(t, jwt.SigningMethodES256, k.ec, "", validClaims("a"))
	if _, err := v.Verify(ctx, tok); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("while down: %v, want ErrUnavailable", err)
	}
	up.Store(true) // the authorization server is back
	time.Sleep(100 * time.Millisecond)
	var err error
	for range 5 {
		if _, err = v.Verify(ctx, tok); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("kid-less token after the JWKS came back: %v (JWKS fetches: %d)", err, jwks.hits.Load())
}

// TestJWKSKidlessTokenAfterRotation: the authorization server rotates to a
// new key and signs tokens without "kid" with it. No cached key verifies
// such a token, so the verifier fetches the set again and tries once more,
// instead of answering invalid_token (401: the client throws the good token
// away) until the next background refresh.
func TestJWKSKidlessTokenAfterRotation(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("old", &k.rsa.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = 10 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	jwks.set(jwkRSA("new", &k.rsaOther.PublicKey))
	tok := sign(t, jwt.SigningMethodRS256, k.rsaOther, "", validClaims("a"))
	time.Sleep(50 * time.Millisecond)
	if _, err := v.Verify(ctx, tok); err != nil {
		t.Fatalf("kid-less token signed with the rotated key: %v (JWKS fetches: %d)", err, jwks.hits.Load())
	}
}

// TestJWKSOneBadKeyDoesNotSinkTheSet: RFC 7517 section 5 says
// implementations SHOULD ignore JWKs "that use kty values that are not
// understood by them, that are missing required members, or for which values
// are out of the supported ranges", and section 4.2 lets "use" take values
// other than "sig" and "enc". One such key next to a good one must not make
// every token unverifiable (jwkset refuses the whole set for it, which gave
// 503 for every request for as long as the server published that key).
func TestJWKSOneBadKeyDoesNotSinkTheSet(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	unknownUse := jwkRSA("other", &k.rsaOther.PublicKey)
	unknownUse["use"] = "tls" // RFC 7517 4.2: "Other values MAY be used."
	for name, extra := range map[string]map[string]any{
		"missing e":   {"kty": "RSA", "kid": "broken", "use": "sig", "n": b64(k.rsaOther.N.Bytes())},
		"unknown use": unknownUse,
	} {
		t.Run(name, func(t *testing.T) {
			jwks := newJWKSServer(t, jwkRSA("rsa1", &k.rsa.PublicKey), extra)
			v := newJWKSVerifier(t, jwks.URL, nil)
			ctx := context.Background()
			for _, kid := range []string{"rsa1", ""} {
				if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, kid, validClaims("a"))); err != nil {
					t.Errorf("kid %q, good key next to a key it cannot use: %v", kid, err)
				}
			}
		})
	}
}

// TestJWKSUnreadableSetKeepsKeys: a fetched set none of whose keys can be
// read counts as a failed fetch: the keys already cached stay in use.
func TestJWKSUnreadableSetKeepsKeys(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("rsa1", &k.rsa.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = 10 * time.Millisecond })
	ctx := context.Background()
	good := sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("a"))
	if _, err := v.Verify(ctx, good); err != nil {
		t.Fatal(err)
	}
	jwks.set(map[string]any{"kty": "RSA", "kid": "broken", "use": "sig", "n": b64(k.rsaOther.N.Bytes())})
	before := jwks.hits.Load()
	// An unknown kid makes the verifier fetch the unreadable set.
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsaOther, "rotated", validClaims("a"))); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("unknown kid while the set is unreadable: %v, want ErrUnavailable", err)
	}
	if jwks.hits.Load() == before {
		t.Fatal("no fetch was made")
	}
	if _, err := v.Verify(ctx, good); err != nil {
		t.Fatalf("cached key after an unreadable set: %v", err)
	}
}

// TestJWKSKidlessTokenNoKeyFits: a token without "kid" whose algorithm no
// key of a set fetched lately fits is refused (401) again and again, not
// told to wait (503) while the refresh it triggered is rate-limited.
func TestJWKSKidlessTokenNoKeyFits(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, jwkRSA("rsa1", &k.rsa.PublicKey))
	v := newJWKSVerifier(t, jwks.URL, func(o *JWTOptions) { o.RefreshRateLimit = time.Minute })
	tok := sign(t, jwt.SigningMethodES256, k.ec, "", validClaims("a"))
	for i := range 3 {
		if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrInvalidToken) {
			t.Fatalf("try %d: %v, want ErrInvalidToken", i, err)
		}
	}
}
