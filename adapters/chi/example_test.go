package chimcp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/go-chi/chi/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"

	chimcp "github.com/mcpmount/mcpmount/adapters/chi"
	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
)

// ExampleMount serves a go-sdk server on a chi route with a URL parameter,
// behind bearer tokens, with the protected resource metadata (RFC 9728)
// at its well-known paths; the tool reads the parameter with chi's own
// API.
func ExampleMount() {
	const (
		resource = "https://mcp.example.com/t/acme/mcp" // the endpoint's public URL, the tokens' audience
		issuer   = "https://auth.example.com"           // the authorization server
	)
	verifier := auth.VerifierFunc(func(_ context.Context, token string) (*identity.Info, error) {
		if token != "s3cret" { // a real server checks JWTs: auth.NewJWTVerifier
			return nil, auth.InvalidToken("unknown token", nil)
		}
		return &identity.Info{Issuer: issuer, Subject: "grace"}, nil
	})
	meta, err := auth.NewMetadata(&auth.ProtectedResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer}})
	if err != nil {
		log.Fatal(err)
	}
	requireBearer := auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: meta.URL})

	server := mcp.NewServer(&mcp.Implementation{Name: "svc", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "tenant"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		text := chi.URLParamFromCtx(ctx, "tenant") // valid for the whole call
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
	})
	engine := gosdk.NewEngine(server, nil)
	h := httptransport.New(engine, nil)

	r := chi.NewRouter()
	for _, p := range meta.Paths {
		r.Handle(p, meta.Handler)
	}
	r.Route("/t/{tenant}", func(r chi.Router) {
		chimcp.Mount(r, "/mcp", h.WithCORS(requireBearer(h))) // CORS outside, so browsers read the 401s
	})
	srv := httptest.NewServer(r) // a program serves r with an http.Server
	defer func() {
		_ = h.Shutdown(context.Background())
		srv.Close()
		_ = engine.Close()
	}()

	// A client without a token is told where the metadata is, and finds
	// there which authorization server to get one from.
	resp, err := http.Get(srv.URL + "/t/acme/mcp")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status, resp.Header.Get("WWW-Authenticate"))
	resp, err = http.Get(srv.URL + "/.well-known/oauth-protected-resource/t/acme/mcp")
	if err != nil {
		log.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Print(string(doc))

	ctx := context.Background()
	hc := oauth2.NewClient(ctx, oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "s3cret"}))
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/t/acme/mcp", HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tenant"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// 401 Unauthorized Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/t/acme/mcp"
	// {"resource":"https://mcp.example.com/t/acme/mcp","authorization_servers":["https://auth.example.com"],"bearer_methods_supported":["header"]}
	// acme
}
