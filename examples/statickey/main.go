// Command statickey tests bearer-token auth without an authorization
// server: tokens are checked against a static Ed25519 key kept in a file
// (JWTOptions.Keys), and the command prints a token signed with it, valid
// for a day and across restarts. Keep the key file out of version control,
// and never ship a server that mints tokens.
//
//	go run ./examples/statickey [-addr 127.0.0.1:8080] [-key dev.key]
package main

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/examples/internal/demo"
	"github.com/mcpmount/mcpmount/httptransport"
)

const issuer = "https://dev.invalid" // any name: with static keys no one fetches it

func main() {
	keyFile := flag.String("key", "dev.key", "file of the Ed25519 seed, made on first use")
	demo.Main("listen address (the tokens name it)", func(ctx context.Context, ln net.Listener, out io.Writer) error {
		return run(ctx, ln, *keyFile, out)
	})
}

// run serves the endpoint on ln until ctx is done, printing a token.
func run(ctx context.Context, ln net.Listener, keyFile string, out io.Writer) error {
	resource := demo.BaseURL(ln) + "/mcp" // the endpoint's URL: the tokens' audience
	key, err := devKey(keyFile)
	if err != nil {
		return err
	}
	token, err := signToken(key, resource)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "MCP endpoint: %s\nbearer token: %s\n", resource, token)

	verifier, err := auth.NewJWTVerifier(ctx, &auth.JWTOptions{
		Issuer: issuer, Audience: resource, Keys: map[string]crypto.PublicKey{"dev": key.Public()},
	})
	if err != nil {
		return err
	}
	defer verifier.Close()
	// The metadata tells clients about the resource; every 401 points to it.
	meta, err := auth.NewMetadata(&auth.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer}})
	if err != nil {
		return err
	}
	requireBearer := auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: meta.URL, Scopes: []string{"mcp"}})

	server := mcp.NewServer(&mcp.Implementation{Name: "svc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Extra.TokenInfo.UserID}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, nil)
	defer engine.Close()
	h := httptransport.New(engine, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h.WithCORS(requireBearer(h))) // CORS outside, so browsers read the 401s
	for _, p := range meta.Paths {
		mux.Handle(p, meta.Handler)
	}
	return demo.Serve(ctx, ln, mux, h) // h.Shutdown, then the HTTP server's
}

// signToken signs a token for resource, valid for a day.
func signToken(key ed25519.PrivateKey, resource string) (string, error) {
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{
		"iss": issuer, "aud": resource, "sub": "dev-user", "scope": "mcp",
		"exp": time.Now().Add(24 * time.Hour).Unix(),
	})
	tok.Header["kid"] = "dev"
	return tok.SignedString(key)
}

// devKey reads an Ed25519 seed from file, making one on the first run.
func devKey(file string) (ed25519.PrivateKey, error) {
	seed, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		seed = make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, err
		}
		err = os.WriteFile(file, seed, 0o600)
	}
	if err != nil {
		return nil, err
	}
	if len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("%s: want a %d-byte Ed25519 seed, have %d bytes", file, ed25519.SeedSize, len(seed))
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
