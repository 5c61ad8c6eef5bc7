package auth_test

import (
	"context"
	"fmt"
	"log"
	"net/http"

	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/identity"
)

// Example protects an MCP endpoint with JWT access tokens from an
// authorization server and publishes the protected resource metadata that
// tells clients where to get them.
func Example() {
	const (
		resource = "https://mcp.example.com/mcp" // the URL clients use
		issuer   = "https://auth.example.com"
	)

	verifier, err := auth.NewJWTVerifier(context.Background(), &auth.JWTOptions{
		Issuer:   issuer,
		Audience: resource,
		JWKSURL:  issuer + "/.well-known/jwks.json",
	})
	if err != nil {
		log.Fatal(err)
	}
	defer verifier.Close()

	mux := http.NewServeMux()
	err = auth.Mount(mux, &auth.ProtectedResourceMetadata{
		Resource:             resource,
		AuthorizationServers: []string{issuer},
		ScopesSupported:      []string{"mcp:read", "mcp:tools"},
	})
	if err != nil {
		log.Fatal(err)
	}

	prm, err := auth.MetadataURL(resource)
	if err != nil {
		log.Fatal(err)
	}
	requireBearer := auth.RequireBearer(verifier, &auth.Options{
		ResourceMetadataURL: prm,
		Scopes:              []string{"mcp:read"},
		MethodScopes:        map[string][]string{"tools/call": {"mcp:tools"}},
		ToolScopes:          map[string][]string{"delete_repo": {"repo:admin"}},
	})

	// mcpTransport stands for the MCP transport handler.
	mcpTransport := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		caller := identity.FromContext(r.Context()) // nil only for CORS preflight
		if caller == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		fmt.Fprintf(w, "hello %s\n", caller.Subject)
	})
	mux.Handle("/mcp", requireBearer(mcpTransport))

	log.Fatal(http.ListenAndServe(":8080", mux))
}

func ExampleMetadataURL() {
	u, err := auth.MetadataURL("https://mcp.example.com/public/mcp")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(u)
	// Output: https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp
}

func ExampleChallenge() {
	opts := &auth.Options{
		ResourceMetadataURL: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp",
	}
	c := opts.Challenge(auth.CodeInsufficientScope, "", "mcp:read", "repo:admin")
	fmt.Println(c.Status())
	fmt.Println(c)
	// Output:
	// 403
	// Bearer error="insufficient_scope", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp", scope="mcp:read repo:admin"
}

// ExampleNewMetadata shows where a router other than http.ServeMux routes
// the protected resource metadata: each of Paths to Handler, with URL in
// the challenges (adapters/gin and adapters/chi show it on gin and chi).
func ExampleNewMetadata() {
	meta, err := auth.NewMetadata(&auth.ProtectedResourceMetadata{
		Resource:             "https://mcp.example.com/api/mcp",
		AuthorizationServers: []string{"https://auth.example.com"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("challenges point to", meta.URL)
	for _, p := range meta.Paths {
		fmt.Println("route GET, HEAD, OPTIONS", p) // to meta.Handler
	}
	// Output:
	// challenges point to https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp
	// route GET, HEAD, OPTIONS /.well-known/oauth-protected-resource/api/mcp
	// route GET, HEAD, OPTIONS /.well-known/oauth-protected-resource
}
