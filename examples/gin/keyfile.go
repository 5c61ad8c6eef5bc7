package main

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/examples/internal/demo"
)

// guard is the bearer authentication in front of the endpoint, with the
// metadata that describes it and a token that passes it.
type guard struct {
	middleware func(http.Handler) http.Handler
	metadata   *auth.Metadata
	token      string
	close      func() error // nil when the App closes it
}

// devGuard is the guard of demo's development issuer: a key made at
// start-up, published on a new loopback port each time.
func devGuard(a *demo.DevAuth) *guard {
	return &guard{middleware: a.Middleware, metadata: a.Metadata, token: a.Token}
}

// keyFileGuard is a guard whose signing key lives in keyFile (an Ed25519
// seed, made with mode 0600 on first use) and whose issuer is named after
// the endpoint, so that its tokens stay valid across restarts on the same
// address. The key is checked as a static key: no JWKS is fetched.
func keyFileGuard(ctx context.Context, resource, keyFile string) (*guard, error) {
	key, err := loadKey(keyFile)
	if err != nil {
		return nil, err
	}
	issuer := resource + "/dev-issuer"
	verifier, err := auth.NewJWTVerifier(ctx, &auth.JWTOptions{
		Issuer: issuer, Audience: resource, Keys: map[string]crypto.PublicKey{"dev": key.Public()},
	})
	if err != nil {
		return nil, fmt.Errorf("verifier for the key in %s: %w", keyFile, err)
	}
	g := &guard{close: verifier.Close}
	if g.metadata, err = auth.NewMetadata(&auth.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer}, ScopesSupported: []string{demo.Scope}}); err != nil {
		_ = g.close()
		return nil, fmt.Errorf("metadata for %s: %w", resource, err)
	}
	g.middleware = auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: g.metadata.URL, Scopes: []string{demo.Scope}})

	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{
		"iss": issuer, "sub": "dev-user", "aud": resource, "scope": demo.Scope,
		"iat": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(),
	})
	tok.Header["kid"] = "dev"
	if g.token, err = tok.SignedString(key); err != nil {
		_ = g.close()
		return nil, fmt.Errorf("signing a token: %w", err)
	}
	return g, nil
}

// loadKey reads an Ed25519 seed from file, or makes one and writes it
// there if the file does not exist.
func loadKey(file string) (ed25519.PrivateKey, error) {
	seed, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		seed = make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, fmt.Errorf("making a key: %w", err)
		}
		if err := os.WriteFile(file, seed, 0o600); err != nil {
			return nil, fmt.Errorf("saving the key: %w", err)
		}
		return ed25519.NewKeyFromSeed(seed), nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the key: %w", err)
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%s holds %d bytes, not a %d-byte Ed25519 seed", file, len(seed), ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// curlLine is a curl command that calls the echo tool at 2026-07-28 with
// token.
func curlLine(endpoint, token string) string {
	return "curl -sS " + endpoint + " -H 'Authorization: Bearer " + token + "'" +
		" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream'" +
		" -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo'" +
		` -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'`
}
