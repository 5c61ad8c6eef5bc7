package auth

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpmount/mcpmount/identity"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// fixture is a real stack on loopback: a JWKS server, a JWTVerifier on it,
// the middleware and a recording handler behind it.
type fixture struct {
	keys *testKeySet
	jwks *jwksServer
	next *recordingHandler
	srv  *httptest.Server
	logs *testutil.Buffer
}

func defaultOptions(logger *slog.Logger) *Options {
	return &Options{
		ResourceMetadataURL: testPRM,
		Scopes:              []string{"mcp:read"},
		MethodScopes:        map[string][]string{"tools/call": {"mcp:tools"}},
		ToolScopes:          map[string][]string{"delete_repo": {"repo:admin"}},
		Logger:              logger,
	}
}

func newFixture(t *testing.T, tweak func(*Options)) *fixture {
	t.Helper()
	f := &fixture{keys: sharedKeys(), next: &recordingHandler{}, logs: &testutil.Buffer{}}
	logger := slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.jwks = newJWKSServer(t, allJWKs(f.keys)...)
	v := newJWKSVerifier(t, f.jwks.URL, func(o *JWTOptions) { o.Logger = logger })
	opts := defaultOptions(logger)
	if tweak != nil {
		tweak(opts)
	}
	f.srv = httptest.NewServer(RequireBearer(v, opts)(f.next))
	t.Cleanup(f.srv.Close)
	return f
}

// request builds a request to the fixture server.
func (f *fixture) request(t *testing.T, method, target, body string) *http.Request {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, f.srv.URL+target, r)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

func (f *fixture) rsaToken(t *testing.T, claims jwt.MapClaims) string {
	return sign(t, jwt.SigningMethodRS256, f.keys.rsa, "rsa1", claims)
}

const (
	toolCallDelete = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repo","arguments":{}}}`
	toolCallEcho   = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
)

func TestMiddlewareAttacks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	k := f.keys

	withClaims := func(edit func(jwt.MapClaims)) string {
		c := validClaims("mcp:read mcp:tools")
		edit(c)
		return f.rsaToken(t, c)
	}
	noneToken, err := jwt.NewWithClaims(jwt.SigningMethodNone, validClaims("mcp:read")).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.rsa.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	hmacConfused := sign(t, jwt.SigningMethodHS256, pemBytes, "rsa1", validClaims("mcp:read"))
	hmacConfusedDER := sign(t, jwt.SigningMethodHS256, der, "", validClaims("mcp:read"))
	validFull := f.rsaToken(t, validClaims("mcp:read mcp:tools"))

	tests := []struct {
		name       string
		token      string // sent as "Authorization: Bearer <token>" unless header is set
		header     []string
		query      string
		method     string
		body       string
		wantStatus int
		wantError  string // expected error= parameter; "" means absent
		wantScope  string // expected scope= parameter; "" means absent
	}{
		{name: "no token", wantStatus: 401, wantScope: "mcp:read"},
		{name: "token in query only", query: "?access_token=" + url.QueryEscape(validFull), wantStatus: 401, wantScope: "mcp:read"},
		{name: "basic scheme", header: []string{"Basic dXNlcjpwYXNz"}, wantStatus: 401, wantScope: "mcp:read"},
		{name: "two authorization headers", header: []string{"Bearer " + validFull, "Bearer " + validFull}, wantStatus: 400, wantError: CodeInvalidRequest},
		{name: "bearer without token", header: []string{"Bearer"}, wantStatus: 400, wantError: CodeInvalidRequest},
		{name: "bearer with blank token", header: []string{"Bearer    "}, wantStatus: 400, wantError: CodeInvalidRequest},
		{name: "token with a space", header: []string{"Bearer abc def"}, wantStatus: 400, wantError: CodeInvalidRequest},
		{name: "garbage token", token: "garbage", wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "alg none", token: noneToken, wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "HS256 keyed with the RSA public key PEM", token: hmacConfused, wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "HS256 keyed with the RSA public key DER, no kid", token: hmacConfusedDER, wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "wrong issuer", token: withClaims(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "wrong audience", token: withClaims(func(c jwt.MapClaims) { c["aud"] = "https://other.example.com/mcp" }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "audience array without this resource", token: withClaims(func(c jwt.MapClaims) { c["aud"] = []string{"https://a.example.com", "https://b.example.com"} }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "no audience", token: withClaims(func(c jwt.MapClaims) { delete(c, "aud") }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "expired", token: withClaims(func(c jwt.MapClaims) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "not yet valid", token: withClaims(func(c jwt.MapClaims) { c["nbf"] = time.Now().Add(time.Hour).Unix() }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "issued in the future", token: withClaims(func(c jwt.MapClaims) { c["iat"] = time.Now().Add(time.Hour).Unix() }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "missing exp", token: withClaims(func(c jwt.MapClaims) { delete(c, "exp") }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "missing sub", token: withClaims(func(c jwt.MapClaims) { delete(c, "sub") }), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "signed by an unpublished key under a published kid", token: sign(t, jwt.SigningMethodRS256, k.rsaOther, "rsa1", validClaims("mcp:read")), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "unknown kid", token: sign(t, jwt.SigningMethodRS256, k.rsaOther, "nope", validClaims("mcp:read")), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "ES256 token naming the RSA kid", token: sign(t, jwt.SigningMethodES256, k.ec, "rsa1", validClaims("mcp:read")), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "RS256 token naming the EC kid", token: sign(t, jwt.SigningMethodRS256, k.rsa, "ec1", validClaims("mcp:read")), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "tampered payload", token: tamper(validFull), wantStatus: 401, wantError: CodeInvalidToken, wantScope: "mcp:read"},
		{name: "missing base scope", token: f.rsaToken(t, validClaims("other")), wantStatus: 403, wantError: CodeInsufficientScope, wantScope: "mcp:read"},
		{name: "tools/call lacking the method scope", token: f.rsaToken(t, validClaims("mcp:read")), method: "POST", body: toolCallEcho, wantStatus: 403, wantError: CodeInsufficientScope, wantScope: "mcp:read mcp:tools"},
		{name: "tools/call of a named tool lacking the tool scope", token: validFull, method: "POST", body: toolCallDelete, wantStatus: 403, wantError: CodeInsufficientScope, wantScope: "mcp:read mcp:tools repo:admin"},
		{name: "duplicate method keys", token: validFull, method: "POST", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","method":"tools/call","params":{"name":"delete_repo"}}`, wantStatus: 403, wantError: CodeInsufficientScope, wantScope: "mcp:read mcp:tools repo:admin"},
		{name: "duplicate tool names", token: validFull, method: "POST", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","name":"delete_repo"}}`, wantStatus: 403, wantError: CodeInsufficientScope, wantScope: "mcp:read mcp:tools repo:admin"},
		{name: "case-variant keys", token: validFull, method: "POST", body: `{"jsonrpc":"2.0","id":1,"METHOD":"tools/call","Params":{"NAME":"delete_repo"}}`, wantStatus: 403, wantError: CodeInsufficientScope, wantScope: "mcp:read mcp:tools repo:admin"},
		{name: "tool call hidden in a batch", token: validFull, method: "POST", body: `[{"jsonrpc":"2.0","id":1,"method":"ping"},` + toolCallDelete + `]`, wantStatus: 403, wantError: CodeInsufficientScope, wantScope: "mcp:read mcp:tools repo:admin"},
		{name: "tool call followed by garbage", token: validFull, method: "POST", body: toolCallDelete + ` trailing`, wantStatus: 403, wantError: CodeInsufficientScope, wantScope: "mcp:read mcp:tools repo:admin"},
	}

	var tokens []string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.next.reset()
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			req := f.request(t, method, "/mcp"+tc.query, tc.body)
			switch {
			case tc.header != nil:
				for _, h := range tc.header {
					req.Header.Add("Authorization", h)
				}
			case tc.token != "":
				req.Header.Set("Authorization", "Bearer "+tc.token)
				tokens = append(tokens, tc.token)
			}
			resp, body := do(t, f.srv.Client(), req)

			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, tc.wantStatus, body)
			}
			if f.next.result().called {
				t.Fatal("next handler ran for a rejected request")
			}
			ch := parseChallenge(t, resp.Header.Get("WWW-Authenticate"))
			if got := ch["error"]; got != tc.wantError {
				t.Errorf("error = %q, want %q", got, tc.wantError)
			}
			if got := ch["scope"]; got != tc.wantScope {
				t.Errorf("scope = %q, want %q", got, tc.wantScope)
			}
			if got := ch["resource_metadata"]; got != testPRM {
				t.Errorf("resource_metadata = %q, want %q", got, testPRM)
			}
			if tc.wantError != "" && ch["error_description"] == "" {
				t.Error("error_description is missing")
			}
			if !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
				t.Errorf("Access-Control-Expose-Headers = %q, want WWW-Authenticate", resp.Header.Get("Access-Control-Expose-Headers"))
			}
			checkErrorBody(t, resp, body, tc.wantError)
			for _, tok := range tokens {
				if strings.Contains(string(body), tok) || strings.Contains(resp.Header.Get("WWW-Authenticate"), tok) {
					t.Error("response echoes the token")
				}
			}
		})
	}

	// No token, nor its signature, may reach the logs.
	logs := f.logs.String()
	if !strings.Contains(logs, "invalid token") || !strings.Contains(logs, "insufficient scope") {
		t.Fatalf("expected rejection records in the log, got:\n%s", logs)
	}
	for _, tok := range append(tokens, validFull) {
		if strings.Contains(logs, tok) {
			t.Fatalf("a token appears in the log output")
		}
		if parts := strings.Split(tok, "."); len(parts) == 3 && len(parts[2]) > 8 && strings.Contains(logs, parts[2]) {
			t.Fatalf("a token signature appears in the log output")
		}
	}
}

// tamper flips the subject inside a token's payload without re-signing.
func tamper(token string) string {
	parts := strings.Split(token, ".")
	payload, err := b64Decode(parts[1])
	if err != nil {
		panic(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		panic(err)
	}
	claims["sub"] = "admin"
	payload, _ = json.Marshal(claims)
	parts[1] = b64(payload)
	return strings.Join(parts, ".")
}

// checkErrorBody checks the body of a refusal: the OAuth error object
// naming code, or, for a request without credentials (code ""), no body at
// all, as RFC 6750 section 3.1 asks for no error code "or other error
// information" then.
func checkErrorBody(t *testing.T, resp *http.Response, body []byte, code string) {
	t.Helper()
	ct := resp.Header.Get("Content-Type")
	if code == "" {
		if len(body) != 0 || ct != "" {
			t.Errorf("a request without credentials got a body: Content-Type %q, %q", ct, body)
		}
		return
	}
	if ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	var eb struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.Unmarshal(body, &eb); err != nil || eb.Error != code {
		t.Errorf("body %q is not the JSON error %q (%v)", body, code, err)
	}
}

func TestMiddlewareAccepts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	k := f.keys
	full := "mcp:read mcp:tools repo:admin"

	tests := []struct {
		name       string
		token      string
		scheme     string
		query      string
		method     string
		body       string
		wantScopes []string
	}{
		{name: "RS256 with scope string", token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims(full)), wantScopes: []string{"mcp:read", "mcp:tools", "repo:admin"}},
		{name: "ES256 with scp array", token: sign(t, jwt.SigningMethodES256, k.ec, "ec1", withoutScope(validClaims(""), "scp", []string{"mcp:read", "mcp:tools"})), wantScopes: []string{"mcp:read", "mcp:tools"}},
		{name: "EdDSA with scp string and scope", token: sign(t, jwt.SigningMethodEdDSA, k.ed, "ed1", withoutScope(validClaims("mcp:read"), "scp", "extra mcp:read")), wantScopes: []string{"mcp:read", "extra"}},
		{name: "lowercase scheme", scheme: "bearer", token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("mcp:read")), wantScopes: []string{"mcp:read"}},
		{name: "audience array with this resource", token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", withoutScope(validClaims("mcp:read"), "aud", []string{"https://other.example.com", testAudience})), wantScopes: []string{"mcp:read"}},
		{name: "expired within leeway", token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", withoutScope(validClaims("mcp:read"), "exp", time.Now().Add(-5*time.Second).Unix())), wantScopes: []string{"mcp:read"}},
		{name: "no kid tries matching keys", token: sign(t, jwt.SigningMethodES256, k.ec, "", validClaims("mcp:read")), wantScopes: []string{"mcp:read"}},
		{name: "query token ignored next to a header", query: "?access_token=garbage", token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("mcp:read")), wantScopes: []string{"mcp:read"}},
		{name: "tools/call of a named tool with every scope", method: "POST", body: toolCallDelete, token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims(full)), wantScopes: []string{"mcp:read", "mcp:tools", "repo:admin"}},
		{name: "tools/call of an unlisted tool", method: "POST", body: toolCallEcho, token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("mcp:read mcp:tools")), wantScopes: []string{"mcp:read", "mcp:tools"}},
		{name: "method without extra scopes", method: "POST", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("mcp:read")), wantScopes: []string{"mcp:read"}},
		{name: "name outside tools/call is not a tool", method: "POST", body: `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"delete_repo"}}`, token: sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("mcp:read")), wantScopes: []string{"mcp:read"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f.next.reset()
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			req := f.request(t, method, "/mcp"+tc.query, tc.body)
			scheme := tc.scheme
			if scheme == "" {
				scheme = "Bearer"
			}
			req.Header.Set("Authorization", scheme+" "+tc.token)
			resp, body := do(t, f.srv.Client(), req)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d, want 200; WWW-Authenticate %q; body %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
			}
			res := f.next.result()
			if !res.called || res.info == nil {
				t.Fatal("next handler did not run with an identity")
			}
			info := res.info
			if info.Subject != "user-1" || info.Issuer != testIssuer {
				t.Errorf("subject, issuer = %q, %q", info.Subject, info.Issuer)
			}
			if strings.Join(info.Scopes, " ") != strings.Join(tc.wantScopes, " ") {
				t.Errorf("scopes = %q, want %q", info.Scopes, tc.wantScopes)
			}
			if info.Expiry.IsZero() || info.Claims["sub"] != "user-1" {
				t.Errorf("expiry %v, claims %v", info.Expiry, info.Claims)
			}
			if info.Owner() != testIssuer+"\x00user-1" {
				t.Errorf("owner = %q", info.Owner())
			}
			if string(res.body) != tc.body {
				t.Errorf("next read body %q, want %q", res.body, tc.body)
			}
		})
	}
}

// withoutScope sets claim name to value in c and returns c.
func withoutScope(c jwt.MapClaims, name string, value any) jwt.MapClaims {
	c[name] = value
	return c
}

func TestIdentityFields(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, nil)
	exp := time.Now().Add(2 * time.Hour).Truncate(time.Second)

	for _, tc := range []struct {
		name   string
		method jwt.SigningMethod
		key    any
		kid    string
	}{
		{"RSA-2048 RS256", jwt.SigningMethodRS256, k.rsa, "rsa1"},
		{"ECDSA P-256 ES256", jwt.SigningMethodES256, k.ec, "ec1"},
		{"Ed25519 EdDSA", jwt.SigningMethodEdDSA, k.ed, "ed1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := validClaims("a b")
			c["exp"] = exp.Unix()
			c["scp"] = []string{"b", "c"}
			c["tenant"] = "acme"
			info, err := v.Verify(context.Background(), sign(t, tc.method, tc.key, tc.kid, c))
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if info.Subject != "user-1" || info.Issuer != testIssuer {
				t.Errorf("subject, issuer = %q, %q", info.Subject, info.Issuer)
			}
			if got := strings.Join(info.Scopes, " "); got != "a b c" {
				t.Errorf("scopes = %q, want %q", got, "a b c")
			}
			if !info.Expiry.Equal(exp) {
				t.Errorf("expiry = %v, want %v", info.Expiry, exp)
			}
			if info.Claims["tenant"] != "acme" {
				t.Errorf("claims = %v", info.Claims)
			}
		})
	}
}

func TestJWKAlgPinning(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, nil)
	// The RSA JWK carries "alg":"RS256"; a PS256 token under its kid must
	// be refused even though the key type fits.
	_, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodPS256, k.rsa, "rsa1", validClaims("")))
	if !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("err = %v, want ErrInvalidToken", err)
	}
}

func TestMiddlewareBodyRestored(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	token := f.rsaToken(t, validClaims("mcp:read mcp:tools repo:admin"))
	bodies := map[string]string{
		"odd spacing and big ids": "{ \"jsonrpc\" : \"2.0\",\n \"id\" : 123456789012345678901234567890,\t\"method\":\"tools/call\", \"params\":{\"name\":\"delete_repo\",\"arguments\":{\"s\":\"\u00fc\\u00e9\\\"\"}} }\n\n",
		"not json":                "this is not json at all",
		"empty object":            "{}",
		"json scalar":             "42",
		"truncated json":          `{"jsonrpc":"2.0","method":"tools/ca`,
	}
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			f.next.reset()
			req := f.request(t, http.MethodPost, "/mcp", body)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, _ := do(t, f.srv.Client(), req)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status = %d", resp.StatusCode)
			}
			if got := string(f.next.result().body); got != body {
				t.Fatalf("next read %q, want %q", got, body)
			}
		})
	}
}

func TestMiddlewareBodyTooLarge(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(o *Options) { o.MaxBodyBytes = 64 })
	token := f.rsaToken(t, validClaims("mcp:read mcp:tools repo:admin"))
	req := f.request(t, http.MethodPost, "/mcp", toolCallDelete+strings.Repeat(" ", 64))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, body := do(t, f.srv.Client(), req)
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status = %d, want 413; body %s", resp.StatusCode, body)
	}
	if f.next.result().called {
		t.Fatal("next ran")
	}
}

func TestMiddlewareBodyUnderOuterLimit(t *testing.T) {
	t.Parallel()
	// An outer http.MaxBytesReader (as gin or chi setups add) is reported
	// as 413 too, and the restored body never exceeds what was read.
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, nil)
	next := &recordingHandler{}
	mw := RequireBearer(v, defaultOptions(slog.New(slog.DiscardHandler)))(next)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 32)
		mw.ServeHTTP(w, r)
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(toolCallEcho))
	req.Header.Set("Authorization", "Bearer "+sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", validClaims("mcp:read mcp:tools")))
	resp, _ := do(t, srv.Client(), req)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || next.result().called {
		t.Fatalf("status = %d, next ran = %v", resp.StatusCode, next.result().called)
	}
}

func TestMiddlewarePreflight(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)

	req := f.request(t, http.MethodOptions, "/mcp", "")
	req.Header.Set("Origin", "https://app.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, _ := do(t, f.srv.Client(), req)
	res := f.next.result()
	if resp.StatusCode != http.StatusOK || !res.called || res.info != nil {
		t.Fatalf("preflight: status %d, next ran %v, identity %v", resp.StatusCode, res.called, res.info)
	}

	f.next.reset()
	req = f.request(t, http.MethodOptions, "/mcp", "")
	resp, _ = do(t, f.srv.Client(), req)
	if resp.StatusCode != http.StatusUnauthorized || f.next.result().called {
		t.Fatalf("plain OPTIONS: status %d, next ran %v", resp.StatusCode, f.next.result().called)
	}
}

func TestMiddlewareVerifierOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		verify      VerifierFunc
		wantStatus  int
		wantRetry   string
		wantError   string
		description string
	}{
		{
			name: "unavailable with hint",
			verify: func(context.Context, string) (*identity.Info, error) {
				return nil, Unavailable(7*time.Second, errors.New("introspection endpoint down"))
			},
			wantStatus: 503, wantRetry: "7",
		},
		{
			name: "unavailable without hint",
			verify: func(context.Context, string) (*identity.Info, error) {
				return nil, fmt.Errorf("wrapped: %w", ErrUnavailable)
			},
			wantStatus: 503, wantRetry: "30",
		},
		{
			name: "unknown error fails closed",
			verify: func(context.Context, string) (*identity.Info, error) {
				return nil, errors.New("database exploded")
			},
			wantStatus: 401, wantError: CodeInvalidToken, description: "invalid token",
		},
		{
			name: "nil identity fails closed",
			verify: func(context.Context, string) (*identity.Info, error) {
				return nil, nil
			},
			wantStatus: 401, wantError: CodeInvalidToken,
		},
		{
			name: "custom description",
			verify: func(context.Context, string) (*identity.Info, error) {
				return nil, InvalidToken("api key revoked", nil)
			},
			wantStatus: 401, wantError: CodeInvalidToken, description: "api key revoked",
		},
		{
			name: "api key accepted",
			verify: func(_ context.Context, token string) (*identity.Info, error) {
				if token != "key-123" {
					return nil, InvalidToken("unknown api key", nil)
				}
				return &identity.Info{Subject: "svc", Scopes: []string{"mcp:read"}}, nil
			},
			wantStatus: 200,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := &recordingHandler{}
			srv := httptest.NewServer(RequireBearer(tc.verify, defaultOptions(slog.New(slog.DiscardHandler)))(next))
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			req.Header.Set("Authorization", "Bearer key-123")
			resp, body := do(t, srv.Client(), req)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status = %d, want %d; body %s", resp.StatusCode, tc.wantStatus, body)
			}
			if got := resp.Header.Get("Retry-After"); got != tc.wantRetry {
				t.Errorf("Retry-After = %q, want %q", got, tc.wantRetry)
			}
			if tc.wantStatus == 503 {
				if resp.Header.Get("WWW-Authenticate") != "" {
					t.Error("503 must not carry a challenge")
				}
				if !strings.Contains(string(body), "temporarily_unavailable") {
					t.Errorf("body = %s", body)
				}
			}
			if tc.wantError != "" {
				ch := parseChallenge(t, resp.Header.Get("WWW-Authenticate"))
				if ch["error"] != tc.wantError {
					t.Errorf("error = %q", ch["error"])
				}
				if tc.description != "" && ch["error_description"] != tc.description {
					t.Errorf("error_description = %q, want %q", ch["error_description"], tc.description)
				}
			}
			if (tc.wantStatus == 200) != next.result().called {
				t.Errorf("next ran = %v", next.result().called)
			}
		})
	}
}

func TestMiddlewareRedactsTokenFromVerifierErrors(t *testing.T) {
	t.Parallel()
	logs := &testutil.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	leaky := VerifierFunc(func(_ context.Context, token string) (*identity.Info, error) {
		return nil, InvalidToken("bad token "+token, fmt.Errorf("cannot parse %q", token))
	})
	srv := httptest.NewServer(RequireBearer(leaky, &Options{Logger: logger})(&recordingHandler{}))
	defer srv.Close()
	token := "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtdXNlciJ9.c2lnbmF0dXJlLXNlY3JldA"
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, body := do(t, srv.Client(), req)
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status = %d", resp.StatusCode)
	}
	out := logs.String() + resp.Header.Get("WWW-Authenticate") + string(body)
	if out == "" || !strings.Contains(logs.String(), "invalid token") {
		t.Fatalf("no log record: %q", logs.String())
	}
	for _, secret := range append(strings.Split(token, "."), token) {
		if strings.Contains(out, secret) {
			t.Fatalf("token material %q leaked into logs or response:\n%s", secret, out)
		}
	}
}

func TestMiddlewareWrappedByRouterAdapters(t *testing.T) {
	t.Parallel()
	k := sharedKeys()
	jwks := newJWKSServer(t, allJWKs(k)...)
	v := newJWKSVerifier(t, jwks.URL, nil)
	mw := RequireBearer(v, defaultOptions(slog.New(slog.DiscardHandler)))
	final := &recordingHandler{}

	// ginLike mimics a gin adapter: the middleware runs with a wrapped
	// ResponseWriter and a capturing next; the chain continues only if the
	// middleware called next, with the request it passed on.
	ginLike := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ww := &wrappedWriter{ResponseWriter: w}
		var passed *http.Request
		mw(http.HandlerFunc(func(_ http.ResponseWriter, r2 *http.Request) { passed = r2 })).ServeHTTP(ww, r)
		if passed == nil {
			return // aborted: the middleware already answered
		}
		final.ServeHTTP(ww, passed)
	})
	// chiLike mounts the middleware under a prefix.
	mux := http.NewServeMux()
	mux.Handle("/gin/", ginLike)
	mux.Handle("/chi/", http.StripPrefix("/chi", mw(final)))
	srv := httptest.NewServer(mux)
	defer srv.Close()

	token := sign(t, jwt.SigningMethodES256, k.ec, "ec1", validClaims("mcp:read mcp:tools"))
	for _, prefix := range []string{"/gin/mcp", "/chi/mcp"} {
		final.reset()
		req, _ := http.NewRequest(http.MethodPost, srv.URL+prefix, strings.NewReader(toolCallEcho))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, _ := do(t, srv.Client(), req)
		res := final.result()
		if resp.StatusCode != 200 || res.info == nil || string(res.body) != toolCallEcho {
			t.Fatalf("%s: status %d, identity %v, body %q", prefix, resp.StatusCode, res.info, res.body)
		}

		final.reset()
		req, _ = http.NewRequest(http.MethodPost, srv.URL+prefix, strings.NewReader(toolCallDelete))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, _ = do(t, srv.Client(), req)
		ch := parseChallenge(t, resp.Header.Get("WWW-Authenticate"))
		if resp.StatusCode != 403 || ch["error"] != CodeInsufficientScope || final.result().called {
			t.Fatalf("%s: status %d, challenge %v, next ran %v", prefix, resp.StatusCode, ch, final.result().called)
		}
	}
}

type wrappedWriter struct {
	http.ResponseWriter
}

func (w *wrappedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func TestRequireBearerRefusesBadConfig(t *testing.T) {
	t.Parallel()
	v := VerifierFunc(func(context.Context, string) (*identity.Info, error) { return nil, nil })
	bad := map[string]*Options{
		"relative metadata URL":     {ResourceMetadataURL: "/.well-known/oauth-protected-resource"},
		"http metadata URL":         {ResourceMetadataURL: "http://mcp.example.com/.well-known/oauth-protected-resource"},
		"offline_access scope":      {Scopes: []string{"mcp:read", OfflineAccess}},
		"offline_access tool scope": {ToolScopes: map[string][]string{"x": {OfflineAccess}}},
		"scope with a quote":        {MethodScopes: map[string][]string{"tools/call": {`a"b`}}},
		"scope with a space":        {Scopes: []string{"a b"}},
		"realm with a quote":        {Realm: `a"b`},
		"negative body limit":       {MaxBodyBytes: -1},
	}
	for name, opts := range bad {
		t.Run(name, func(t *testing.T) {
			if err := opts.Validate(); err == nil {
				t.Fatal("Validate accepted a bad configuration")
			}
			defer func() {
				if recover() == nil {
					t.Fatal("RequireBearer did not panic")
				}
			}()
			RequireBearer(v, opts)
		})
	}
	if err := (*Options)(nil).Validate(); err != nil {
		t.Fatalf("nil options: %v", err)
	}
	RequireBearer(v, nil) // defaults are valid
	RequireBearer(v, &Options{ResourceMetadataURL: "http://127.0.0.1:8080/.well-known/oauth-protected-resource"})
}

func TestMiddlewareScopeHierarchy(t *testing.T) {
	t.Parallel()
	// "repo" implies every "repo:*" scope.
	hierarchy := func(granted []string, required string) bool {
		for _, g := range granted {
			if g == required || strings.HasPrefix(required, g+":") {
				return true
			}
		}
		return false
	}
	f := newFixture(t, func(o *Options) { o.MatchScope = hierarchy })
	for _, tc := range []struct {
		scope string
		want  int
	}{
		{"mcp:read mcp:tools repo", 200},
		{"mcp:read mcp:tools repository", 403},
	} {
		req := f.request(t, http.MethodPost, "/mcp", toolCallDelete)
		req.Header.Set("Authorization", "Bearer "+f.rsaToken(t, validClaims(tc.scope)))
		if resp, _ := do(t, f.srv.Client(), req); resp.StatusCode != tc.want {
			t.Errorf("scope %q: status %d, want %d", tc.scope, resp.StatusCode, tc.want)
		}
	}
}

func TestMiddlewareConcurrentPrincipals(t *testing.T) {
	t.Parallel()
	// Requests of different principals on shared connections are each
	// authorized on their own; nothing carries over between them.
	f := newFixture(t, nil)
	k := f.keys
	type principal struct {
		token, subject string
		status         int
	}
	var ps []principal
	for i := range 8 {
		c := validClaims("mcp:read mcp:tools")
		sub := fmt.Sprintf("user-%d", i)
		c["sub"] = sub
		status := http.StatusOK
		if i%2 == 1 {
			c["scope"] = "mcp:read" // lacks mcp:tools
			status = http.StatusForbidden
		}
		method, key, kid := jwt.SigningMethod(jwt.SigningMethodES256), any(k.ec), "ec1"
		if i%3 == 0 {
			method, key, kid = jwt.SigningMethodEdDSA, k.ed, "ed1"
		}
		ps = append(ps, principal{sign(t, method, key, kid, c), sub, status})
	}
	seen := make(chan string, 64)
	srv := httptest.NewServer(RequireBearer(newJWKSVerifier(t, f.jwks.URL, nil), defaultOptions(slog.New(slog.DiscardHandler)))(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen <- identity.FromContext(r.Context()).Subject + " " + r.Header.Get("X-Expect")
		})))
	defer srv.Close()

	errs := make(chan error, 64)
	for round := range 4 {
		for i, p := range ps {
			go func() {
				req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(toolCallEcho))
				req.Header.Set("Authorization", "Bearer "+p.token)
				req.Header.Set("X-Expect", p.subject)
				resp, err := srv.Client().Do(req)
				if err != nil {
					errs <- err
					return
				}
				_ = resp.Body.Close()
				if resp.StatusCode != p.status {
					errs <- fmt.Errorf("round %d principal %d: status %d, want %d", round, i, resp.StatusCode, p.status)
					return
				}
				errs <- nil
			}()
		}
	}
	for range 4 * len(ps) {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(seen)
	for s := range seen {
		parts := strings.Fields(s)
		if len(parts) != 2 || parts[0] != parts[1] {
			t.Errorf("handler saw identity %q for a request of %q", parts[0], parts[len(parts)-1])
		}
	}
}
