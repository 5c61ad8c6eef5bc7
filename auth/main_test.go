package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/identity"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const (
	testIssuer   = "https://as.example.com"
	testAudience = "https://mcp.example.com/mcp"
	testPRM      = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
)

// testKeySet holds one real key of every supported type.
type testKeySet struct {
	rsa      *rsa.PrivateKey
	rsaOther *rsa.PrivateKey // same kid as rsa in forgery tests, never published
	ec       *ecdsa.PrivateKey
	ed       ed25519.PrivateKey
}

// RSA key generation is slow under -race, so the keys are made once.
var sharedKeys = sync.OnceValue(func() *testKeySet {
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	must(err)
	rsaOther, err := rsa.GenerateKey(rand.Reader, 2048)
	must(err)
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(err)
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	must(err)
	return &testKeySet{rsa: rsaKey, rsaOther: rsaOther, ec: ecKey, ed: edKey}
})

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwkRSA encodes an RSA public key as a JWK (RFC 7518 section 6.3.1).
func jwkRSA(kid string, k *rsa.PublicKey) map[string]any {
	return map[string]any{
		"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64(k.N.Bytes()),
		"e": b64(big.NewInt(int64(k.E)).Bytes()),
	}
}

// jwkEC encodes a P-256 public key as a JWK (RFC 7518 section 6.2.1).
func jwkEC(kid string, k *ecdsa.PublicKey) map[string]any {
	point, err := k.Bytes() // 0x04 || X || Y, each 32 bytes
	if err != nil {
		panic(err)
	}
	return map[string]any{
		"kty": "EC", "kid": kid, "use": "sig", "crv": "P-256",
		"x": b64(point[1:33]),
		"y": b64(point[33:65]),
	}
}

// jwkOKP encodes an Ed25519 public key as a JWK (RFC 8037 section 2).
func jwkOKP(kid string, k ed25519.PublicKey) map[string]any {
	return map[string]any{"kty": "OKP", "kid": kid, "crv": "Ed25519", "x": b64(k)}
}

// jwksServer serves a JWK Set that tests can replace, on loopback.
type jwksServer struct {
	*httptest.Server
	doc   atomic.Pointer[[]byte]
	hits  atomic.Int64
	delay atomic.Int64 // nanoseconds each answer waits
}

func newJWKSServer(t *testing.T, keys ...map[string]any) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.set(keys...)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		time.Sleep(time.Duration(s.delay.Load()))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(*s.doc.Load())
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) set(keys ...map[string]any) {
	if keys == nil {
		keys = []map[string]any{}
	}
	doc, err := json.Marshal(map[string]any{"keys": keys})
	if err != nil {
		panic(err)
	}
	s.doc.Store(&doc)
}

// allJWKs publishes the RSA, EC and Ed25519 keys as rsa1, ec1 and ed1.
func allJWKs(k *testKeySet) []map[string]any {
	return []map[string]any{
		jwkRSA("rsa1", &k.rsa.PublicKey),
		jwkEC("ec1", &k.ec.PublicKey),
		jwkOKP("ed1", k.ed.Public().(ed25519.PublicKey)),
	}
}

// validClaims are claims that pass every check, with the given scope.
func validClaims(scope string) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{
		"iss": testIssuer,
		"aud": testAudience,
		"sub": "user-1",
		"iat": now.Unix(),
		"nbf": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
	if scope != "" {
		c["scope"] = scope
	}
	return c
}

// sign makes a real signed JWT.
func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign token: %v", err)
	}
	return s
}

// newJWKSVerifier builds a JWTVerifier on srv and closes it at cleanup.
func newJWKSVerifier(t *testing.T, jwksURL string, tweak func(*JWTOptions)) *JWTVerifier {
	t.Helper()
	opts := &JWTOptions{
		Issuer:   testIssuer,
		Audience: testAudience,
		JWKSURL:  jwksURL,
		Logger:   slog.New(slog.DiscardHandler),
	}
	if tweak != nil {
		tweak(opts)
	}
	v, err := NewJWTVerifier(context.Background(), opts)
	if err != nil {
		t.Fatalf("NewJWTVerifier: %v", err)
	}
	t.Cleanup(func() { _ = v.Close() })
	return v
}

// parseChallenge splits a Bearer challenge into its parameters.
func parseChallenge(t *testing.T, header string) map[string]string {
	t.Helper()
	rest, ok := strings.CutPrefix(header, "Bearer")
	if !ok {
		t.Fatalf("challenge %q does not start with Bearer", header)
	}
	params := map[string]string{}
	rest = strings.TrimSpace(rest)
	for rest != "" {
		name, after, ok := strings.Cut(rest, `="`)
		if !ok {
			t.Fatalf("challenge %q: malformed parameter near %q", header, rest)
		}
		var val strings.Builder
		i := 0
		for ; i < len(after) && after[i] != '"'; i++ {
			if after[i] == '\\' && i+1 < len(after) {
				i++
			}
			val.WriteByte(after[i])
		}
		if i == len(after) {
			t.Fatalf("challenge %q: unterminated quoted string", header)
		}
		if _, dup := params[name]; dup {
			t.Fatalf("challenge %q: parameter %s repeated", header, name)
		}
		params[name] = val.String()
		rest = strings.TrimPrefix(strings.TrimSpace(after[i+1:]), ",")
		rest = strings.TrimSpace(rest)
	}
	return params
}

// callResult is what the handler behind the middleware saw.
type callResult struct {
	called bool
	info   *identity.Info
	body   []byte
}

// recordingHandler records whether it ran, the identity and the body.
type recordingHandler struct {
	mu  sync.Mutex
	res callResult
}

func (h *recordingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.res = callResult{called: true, info: identity.FromContext(r.Context()), body: body}
	h.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

func (h *recordingHandler) result() callResult {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.res
}

func (h *recordingHandler) reset() {
	h.mu.Lock()
	h.res = callResult{}
	h.mu.Unlock()
}

// do sends req with a bounded context and returns the response with its
// body read.
func do(t *testing.T, client *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(req.Context(), 10*time.Second)
	defer cancel()
	resp, err := client.Do(req.WithContext(ctx))
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return resp, body
}

func b64Decode(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }

func joinScopes(s []string) string { return strings.Join(s, " ") }

// atomicBool is a small alias to keep test servers race-free.
type atomicBool = atomic.Bool
