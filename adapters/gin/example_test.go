package ginmcp_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	ginmcp "github.com/mcpmount/mcpmount/adapters/gin"
	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
)

// ExampleMount serves a go-sdk server on a gin route group, behind bearer
// tokens: the protected resource metadata (RFC 9728) is routed at its
// well-known paths, CORS goes in front of auth, and the tool reads a key
// the group's middleware set.
func ExampleMount() {
	const (
		resource = "https://mcp.example.com/api/mcp" // the endpoint's public URL, the tokens' audience
		issuer   = "https://auth.example.com"        // the authorization server
	)
	// A real server checks JWTs with auth.NewJWTVerifier; this one knows
	// one token.
	verifier := auth.VerifierFunc(func(_ context.Context, token string) (*identity.Info, error) {
		if token != "s3cret" {
			return nil, auth.InvalidToken("unknown token", nil)
		}
		return &identity.Info{Issuer: issuer, Subject: "ada"}, nil
	})
	meta, err := auth.NewMetadata(&auth.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer}})
	if err != nil {
		log.Fatal(err)
	}
	requireBearer := auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: meta.URL})

	server := mcp.NewServer(&mcp.Implementation{Name: "svc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		c, _ := ginmcp.FromContext(ctx) // a copy of the request's *gin.Context
		text := req.Extra.TokenInfo.UserID + " of " + c.GetString("tenant")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, nil)
	h := httptransport.New(engine, nil)

	r := gin.New()
	for _, p := range meta.Paths {
		r.Match([]string{http.MethodGet, http.MethodHead, http.MethodOptions}, p, gin.WrapH(meta.Handler))
	}
	api := r.Group("/api", func(c *gin.Context) { c.Set("tenant", "acme") })
	ginmcp.Mount(api, "/mcp", h.WithCORS(requireBearer(h))) // CORS outside, so browsers read the 401s

	srv := httptest.NewServer(r) // a program serves r with an http.Server
	defer func() {
		_ = h.Shutdown(context.Background())
		srv.Close()
		_ = engine.Close()
	}()

	resp, err := http.Post(srv.URL+"/api/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	resp, err = http.Get(srv.URL + "/.well-known/oauth-protected-resource/api/mcp")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.StatusCode, resp.Header.Get("Content-Type"))

	ctx := context.Background()
	hc := oauth2.NewClient(ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "s3cret"}))
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/api/mcp", HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 401 Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/api/mcp"
	// 200 application/json
	// ada of acme
}
