package demo

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpmount/mcpmount/auth"
)

// Scope is the scope the examples require on every request.
const Scope = "mcp"

// DevAuth is bearer authentication for a development server. It makes an
// Ed25519 key pair at start-up, publishes the public key as a JWKS from a
// local stand-in for an authorization server on a loopback port, verifies
// tokens against that JWKS, and describes the endpoint with RFC 9728
// metadata. Never use it in production: it signs a token for anyone who
// can read the console.
type DevAuth struct {
	// Middleware checks bearer tokens (auth.RequireBearer). It is net/http
	// middleware: chi uses it as is, gin through ginmcp.Middleware.
	Middleware func(http.Handler) http.Handler
	// Metadata is the protected resource metadata document: where clients
	// look for it (Metadata.Paths) and its handler.
	Metadata *auth.Metadata
	// Token is a signed token for the endpoint, valid for a day.
	Token string
	// JWKSURL is where the development issuer publishes its public key.
	JWKSURL string

	verifier *auth.JWTVerifier
	issuer   *http.Server
}

// NewDevAuth starts the development issuer and protects the MCP endpoint
// whose URL is resource (for example http://127.0.0.1:8080/api/mcp).
func NewDevAuth(ctx context.Context, resource string) (*DevAuth, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	issuerURL := "http://" + ln.Addr().String()
	jwks, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "OKP", "crv": "Ed25519", "kid": "dev", "alg": "EdDSA", "use": "sig",
		"x": base64.RawURLEncoding.EncodeToString(pub),
	}}})
	a := &DevAuth{issuer: &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/jwks.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jwks)
	})}}
	go func() { _ = a.issuer.Serve(ln) }()

	a.JWKSURL = issuerURL + "/.well-known/jwks.json"
	a.verifier, err = auth.NewJWTVerifier(ctx, &auth.JWTOptions{Issuer: issuerURL, Audience: resource, JWKSURL: a.JWKSURL})
	if err != nil {
		_ = a.issuer.Close()
		return nil, err
	}
	a.Metadata, err = auth.NewMetadata(&auth.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{issuerURL}, ScopesSupported: []string{Scope}})
	if err != nil {
		_ = a.Close()
		return nil, err
	}
	a.Middleware = auth.RequireBearer(a.verifier, &auth.Options{ResourceMetadataURL: a.Metadata.URL, Scopes: []string{Scope}})

	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{
		"iss": issuerURL, "sub": "dev-user", "aud": resource, "scope": Scope,
		"iat": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(),
	})
	tok.Header["kid"] = "dev"
	if a.Token, err = tok.SignedString(priv); err != nil {
		_ = a.Close()
		return nil, err
	}
	return a, nil
}

// Close stops the verifier and the issuer.
func (a *DevAuth) Close() error {
	_ = a.verifier.Close()
	return a.issuer.Close()
}
