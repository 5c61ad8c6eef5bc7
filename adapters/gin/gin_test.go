package ginmcp_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	ginmcp "github.com/mcpmount/mcpmount/adapters/gin"
	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
)

func init() { gin.SetMode(gin.TestMode) }

// describe is what a tool sees of the gin request behind its call.
func describe(ctx context.Context) string {
	c, ok := ginmcp.FromContext(ctx)
	if !ok {
		return "no gin context"
	}
	return c.GetString("tenant") + " " + c.FullPath()
}

func setTenant(tenant string) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set("tenant", tenant)
		c.Next()
	}
}

// router mounts endpoint in a group inside a group, behind a logger,
// recovery and a middleware that sets a key, with extra middleware
// (such as auth) on the inner group.
func router(endpoint http.Handler, extra ...gin.HandlerFunc) http.Handler {
	r := gin.New()
	r.Use(gin.LoggerWithWriter(io.Discard), gin.Recovery())
	api := r.Group("/api", setTenant("acme"))
	v1 := api.Group("/v1", extra...)
	ginmcp.Mount(v1, "/mcp", endpoint)
	r.GET("/other", setTenant("other"), func(c *gin.Context) { c.String(http.StatusOK, "ok") })
	return r
}

// TestEras drives the endpoint in a nested group with go-sdk clients of
// every era: the gin keys reach tool handlers, progress is not buffered by
// gin's writer, cancellation reaches the tool, and the 2024-11-05 endpoint
// event names the URL under the group prefix.
func TestEras(t *testing.T) {
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h) })
	url := srv.URL + "/api/v1/mcp"
	for _, era := range eras {
		t.Run(era, func(t *testing.T) { checkEra(t, p, url, era, "acme /api/v1/mcp") })
	}
	t.Run("legacy endpoint event", func(t *testing.T) { checkLegacyEndpoint(t, url, "/api/v1/mcp") })
}

// TestContextOutlivesRequest runs a 2024-11-05 call, whose POST is
// answered 202 before the tool runs, while gin serves other requests and
// recycles its contexts: FromContext still returns the call's own values.
func TestContextOutlivesRequest(t *testing.T) {
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h) })
	cs := connect(t, srv.URL+"/api/v1/mcp", httptransport.Version20241105, nil, nil)
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: keyArgs{Key: "late"}})
		done <- answer{res, err}
	}()
	waitFor(t, p.started, "late")
	for range 50 {
		resp, err := http.Get(srv.URL + "/other")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	p.open("late")
	a := <-done
	if a.err != nil {
		t.Fatal(a.err)
	}
	if got := a.res.Content[0].(*mcp.TextContent).Text; got != "acme /api/v1/mcp" {
		t.Errorf("tool saw %q after its request ended, want %q", got, "acme /api/v1/mcp")
	}
}

// TestMiddlewareAuth runs auth.RequireBearer as gin middleware through
// Middleware: without a token the chain stops at a 401 challenge; with one
// the verified caller reaches the tool next to the gin keys.
func TestMiddlewareAuth(t *testing.T) {
	verifier := auth.VerifierFunc(func(_ context.Context, token string) (*identity.Info, error) {
		if token != "alice-token" {
			return nil, auth.InvalidToken("unknown token", nil)
		}
		return &identity.Info{Subject: "alice", Issuer: "test"}, nil
	})
	requireBearer := auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource/api/v1/mcp"})
	var after atomic.Int32
	counter := func(c *gin.Context) { after.Add(1); c.Next() }
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h, ginmcp.Middleware(requireBearer), counter) })
	url := srv.URL + "/api/v1/mcp"

	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
		t.Errorf("no token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	if n := after.Load(); n != 0 {
		t.Errorf("the gin chain ran on after a refused token (%d times)", n)
	}

	hc := &http.Client{Transport: bearer("alice-token")}
	t.Cleanup(hc.CloseIdleConnections)
	for _, era := range []string{httptransport.Version20260728, httptransport.Version20241105} {
		cs := connect(t, url, era, hc, nil)
		if got := call(t, cs, &mcp.CallToolParams{Name: "whoami", Arguments: keyArgs{}}); got != "acme /api/v1/mcp user=alice" {
			t.Errorf("%s: tool saw %q", era, got)
		}
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestMethods checks that Mount hands every method to the transport: a CORS
// preflight, a DELETE and an unknown method get the transport's answers,
// not gin's 404.
func TestMethods(t *testing.T) {
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h) })
	for _, tc := range []struct {
		method string
		header map[string]string
		status int
		check  string // a response header that must be set
	}{
		{http.MethodOptions, map[string]string{"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"}, http.StatusNoContent, "Access-Control-Allow-Origin"},
		{http.MethodDelete, nil, http.StatusBadRequest, "Content-Type"},
		{http.MethodPut, nil, http.StatusMethodNotAllowed, "Allow"},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+"/api/v1/mcp", nil)
		for k, v := range tc.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status || resp.Header.Get(tc.check) == "" {
			t.Errorf("%s: %s, %s %q", tc.method, resp.Status, tc.check, resp.Header.Get(tc.check))
		}
	}
}

// TestResponseController checks what the transport's SSE writer relies on:
// through gin's writer and middleware, http.ResponseController can flush
// and set write deadlines.
func TestResponseController(t *testing.T) {
	errc := make(chan error, 1)
	r := gin.New()
	r.Use(gin.LoggerWithWriter(io.Discard), gin.Recovery())
	r.GET("/", func(c *gin.Context) {
		rc := http.NewResponseController(c.Writer)
		errc <- errors.Join(rc.SetWriteDeadline(time.Now().Add(time.Minute)), rc.Flush())
	})
	srv := httptest.NewServer(r)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-errc; err != nil {
		t.Error(err)
	}
}
