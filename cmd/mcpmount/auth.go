package main

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"

	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/identity"
)

// authConfig is what the auth flags say.
type authConfig struct {
	jwksURL, issuer, audience, scopes, tokenFile string
}

// enabled reports whether any auth flag is set.
func (a *authConfig) enabled() bool {
	return a.jwksURL != "" || a.issuer != "" || a.audience != "" || a.tokenFile != ""
}

// guard is the auth in front of the endpoint: its middleware, and the
// protected resource metadata and where it is served (JWT only).
type guard struct {
	middleware func(http.Handler) http.Handler
	metadata   *auth.Metadata // nil without JWT auth
	close      func()
}

// scopeList splits --scopes (commas or spaces).
func scopeList(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' })
}

// newGuard builds the auth the flags ask for: a static token from
// --token-file (development), or JWT access tokens checked against the
// issuer's JWKS (--jwks-url, --issuer, --audience), each optionally
// requiring --scopes.
func newGuard(ctx context.Context, a *authConfig, logger *slog.Logger) (*guard, error) {
	scopes := scopeList(a.scopes)
	if a.tokenFile != "" {
		if a.jwksURL != "" || a.issuer != "" || a.audience != "" {
			return nil, errors.New("--token-file and the JWT flags (--jwks-url, --issuer, --audience) exclude each other")
		}
		v, err := staticToken(a.tokenFile)
		if err != nil {
			return nil, err
		}
		return &guard{middleware: auth.RequireBearer(v, &auth.Options{Scopes: nil, Logger: logger}), close: func() {}}, nil
	}
	if a.jwksURL == "" || a.issuer == "" || a.audience == "" {
		return nil, errors.New("JWT auth needs --jwks-url, --issuer and --audience (the endpoint's canonical URL)")
	}
	v, err := auth.NewJWTVerifier(ctx, &auth.JWTOptions{Issuer: a.issuer, Audience: a.audience, JWKSURL: a.jwksURL, Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("JWT verifier: %w", err)
	}
	meta, err := auth.NewMetadata(&auth.ProtectedResourceMetadata{Resource: a.audience, AuthorizationServers: []string{a.issuer}, ScopesSupported: scopes})
	if err != nil {
		_ = v.Close()
		return nil, fmt.Errorf("protected resource metadata: %w", err)
	}
	opts := &auth.Options{ResourceMetadataURL: meta.URL, Scopes: scopes, Logger: logger}
	if err := opts.Validate(); err != nil {
		_ = v.Close()
		return nil, err
	}
	return &guard{middleware: auth.RequireBearer(v, opts), metadata: meta, close: func() { _ = v.Close() }}, nil
}

// staticToken is a verifier that accepts the one token in path (for
// development: it never expires and names no one in particular).
func staticToken(path string) (auth.Verifier, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--token-file: %w", err)
	}
	tok := strings.TrimSpace(string(raw))
	if tok == "" {
		return nil, fmt.Errorf("--token-file %s is empty", path)
	}
	want := sha256.Sum256([]byte(tok))
	return auth.VerifierFunc(func(_ context.Context, token string) (*identity.Info, error) {
		got := sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			return nil, auth.InvalidToken("unknown token", nil)
		}
		return &identity.Info{Subject: "token-file"}, nil
	}), nil
}
