package gosdk_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// TestLegacySSEClient: go-sdk's SSEClientTransport (2024-11-05 HTTP+SSE)
// connects through the handler that serves Streamable HTTP, calls a tool
// with progress, and cancels a slow call.
func TestLegacySSEClient(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	arrived := make(chan float64, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "sse-client", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		arrived <- req.Params.Progress
	}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: f.url}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"count": 4}}
	params.SetProgressToken("sse")
	res, err := cs.CallTool(ctx, params)
	if err != nil || textOf(t, res) != "4" {
		t.Fatalf("progress: %v %v", res, err)
	}
	// The client runs its handler on a goroutine of its own: the last
	// notifications may come after the result.
	timeout := time.After(5 * time.Second)
	for n := 0; n < 4; n++ {
		select {
		case <-arrived:
		case <-timeout:
			t.Errorf("%d progress notifications, want 4", n)
			n = 4
		}
	}
	callCtx, callCancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"text": "sse"}})
		errc <- err
	}()
	<-f.started
	callCancel()
	select {
	case name := <-f.cancelled:
		if name != "sse" {
			t.Fatalf("cancelled %q", name)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("cancelling the client's call did not reach the tool")
	}
	if err := <-errc; err == nil {
		t.Error("cancelled call returned no error")
	}
}

// TestLegacyURLServesNewerClients: the URL a 2024-11-05 client uses is the
// same mount, so a 2025-11-25 client configured with it completes a call
// without any fallback, and so does a 2026-07-28 client.
func TestLegacyURLServesNewerClients(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, v := range []string{httptransport.Version20251125, httptransport.Version20260728} {
		cs := connect(t, f.url, v, nil)
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": v}})
		if err != nil || textOf(t, res) != v {
			t.Errorf("%s: %v %v", v, res, err)
		}
	}
}

// bearerTransport adds a bearer token to every request.
// bearerTransport adds a token to every request it sends on base
// (http.DefaultTransport if nil).
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	if b.base != nil {
		return b.base.RoundTrip(r)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestTokenReachesTool: a real Ed25519-signed JWT, verified against a real
// JWKS endpoint, carries its subject through the transport to the tool
// (req.Extra.TokenInfo) at 2026-07-28, 2025-11-25 and over legacy SSE; a
// session opened by one principal is not found for another.
func TestTokenReachesTool(t *testing.T) {
	t.Parallel()
	server := mcp.NewServer(&mcp.Implementation{Name: "auth", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "whoami"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		who := "anonymous"
		if req.Extra != nil && req.Extra.TokenInfo != nil {
			who = req.Extra.TokenInfo.UserID + " " + strings.Join(req.Extra.TokenInfo.Scopes, ",")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: who}}}, nil, nil
	})
	af := newAuthFixture(t, server, nil)
	resource, prm := af.resource, af.metadata
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	token := func(sub string) string { return af.token(sub, time.Hour) }
	alice := &http.Client{Transport: bearerTransport{token: token("alice")}}
	whoami := func(t *testing.T, cs *mcp.ClientSession) string {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("whoami: %v", err)
		}
		return textOf(t, res)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	for _, v := range []string{httptransport.Version20260728, httptransport.Version20251125} {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: resource, HTTPClient: alice}, &mcp.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			t.Fatalf("%s connect: %v", v, err)
		}
		if got := whoami(t, cs); got != "alice mcp,tools" {
			t.Errorf("%s: tool saw %q", v, got)
		}
		if v == httptransport.Version20251125 {
			// Bob presents a valid token with Alice's session id.
			req, _ := http.NewRequest("POST", resource, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"tools/list"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Mcp-Session-Id", cs.ID())
			req.Header.Set("Mcp-Protocol-Version", v)
			resp, err := (&http.Client{Transport: bearerTransport{token: token("bob")}}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("session hijack by another principal: %d", resp.StatusCode)
			}
		}
		cs.Close()
	}
	cs, err := client.Connect(ctx, &mcp.SSEClientTransport{Endpoint: resource, HTTPClient: alice}, nil)
	if err != nil {
		t.Fatalf("SSE connect: %v", err)
	}
	if got := whoami(t, cs); got != "alice mcp,tools" {
		t.Errorf("legacy SSE: tool saw %q", got)
	}
	cs.Close()
	resp, err := http.Post(resource, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+prm+`"`) {
		t.Errorf("no token: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
}

// authFixture serves a go-sdk server through the transport behind
// auth.RequireBearer, verifying Ed25519-signed JWTs against a real JWKS
// endpoint.
type authFixture struct {
	resource, metadata string
	h                  *httptransport.Handler
	priv               ed25519.PrivateKey
	t                  *testing.T
}

func newAuthFixture(t *testing.T, server *mcp.Server, opts *httptransport.Options) *authFixture {
	t.Helper()
	return newAuthFixtureOn(t, nil, server, opts)
}

// newAuthFixtureOn is newAuthFixture on mn (for a test in a synctest
// bubble; its clients' HTTP client is mn.Client()), or on loopback sockets
// if mn is nil.
func newAuthFixtureOn(t *testing.T, mn *testutil.MemNet, server *mcp.Server, opts *httptransport.Options) *authFixture {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	start := func(h http.Handler) *httptest.Server {
		srv := httptest.NewUnstartedServer(h)
		if mn != nil {
			mn.Serve(srv, false)
		} else {
			srv.Start()
		}
		return srv
	}
	jwks := start(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","alg":"EdDSA","use":"sig","x":%q}]}`, base64.RawURLEncoding.EncodeToString(pub))
	}))
	t.Cleanup(jwks.Close)
	engine := gosdk.NewEngine(server, nil)
	h := httptransport.New(engine, opts)
	mux := http.NewServeMux()
	srv := start(mux)
	stopAtCleanup(t, h, srv, engine)
	af := &authFixture{resource: srv.URL + "/mcp", h: h, priv: priv, t: t}
	verifier, err := auth.NewJWTVerifier(context.Background(), &auth.JWTOptions{Issuer: "https://issuer.test", Audience: af.resource, JWKSURL: jwks.URL, Algorithms: []string{"EdDSA"}, HTTPClient: jwks.Client()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = verifier.Close() })
	af.metadata, _ = auth.MetadataURL(af.resource)
	mux.Handle("/mcp", auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: af.metadata, Scopes: []string{"mcp"}})(h))
	return af
}

// token signs a token for sub that expires after ttl.
func (af *authFixture) token(sub string, ttl time.Duration) string {
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{
		"iss": "https://issuer.test", "aud": af.resource, "sub": sub, "scope": "mcp tools",
		"exp": time.Now().Add(ttl).Unix(), "iat": time.Now().Unix(),
	})
	tok.Header["kid"] = "k1"
	s, err := tok.SignedString(af.priv)
	if err != nil {
		af.t.Fatal(err)
	}
	return s
}

// TestStreamEndsWithToken: a 2025-era GET stream opened with a real JWT
// ends when the token expires (the client then comes back with a fresh
// one), and with Options.StreamsOutliveTokens it does not.
func TestStreamEndsWithToken(t *testing.T) {
	t.Parallel()
	for _, outlive := range []bool{false, true} {
		t.Run(fmt.Sprint("outlive ", outlive), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				mn := &testutil.MemNet{}
				server := mcp.NewServer(&mcp.Implementation{Name: "auth", Version: "1"}, nil)
				af := newAuthFixtureOn(t, mn, server, &httptransport.Options{StreamsOutliveTokens: outlive})
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				client := &http.Client{Transport: bearerTransport{token: af.token("alice", 2*time.Second), base: mn.Client().Transport}}
				cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: af.resource, HTTPClient: client, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer cs.Close()
				req, _ := http.NewRequestWithContext(ctx, "GET", af.resource, nil)
				req.Header.Set("Accept", "text/event-stream")
				req.Header.Set("Mcp-Session-Id", cs.ID())
				req.Header.Set("Mcp-Protocol-Version", httptransport.Version20251125)
				resp, err := client.Do(req)
				if err != nil || resp.StatusCode != 200 {
					t.Fatalf("GET stream: %v %v", resp, err)
				}
				ended := make(chan error, 1)
				go func() { _, err := io.Copy(io.Discard, resp.Body); ended <- err }()
				select {
				case err := <-ended:
					if outlive {
						t.Errorf("with StreamsOutliveTokens the stream ended at the token's expiry (%v)", err)
					}
				case <-time.After(4 * time.Second):
					if !outlive {
						t.Error("the GET stream outlived its token")
					}
				}
				resp.Body.Close()
			})
		})
	}
}
