package ginmcp_test

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	ginmcp "github.com/mcpmount/mcpmount/adapters/gin"
	"github.com/mcpmount/mcpmount/adapters/internal/adaptertest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

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

// router returns the route for adaptertest.Serve: it mounts endpoint in a
// group inside a group, behind a logger, recovery and a middleware that
// sets a key, with extra middleware (such as auth) on the inner group.
func router(extra ...gin.HandlerFunc) func(endpoint http.Handler) http.Handler {
	return func(endpoint http.Handler) http.Handler {
		r := gin.New()
		r.Use(gin.LoggerWithWriter(io.Discard), gin.Recovery())
		api := r.Group("/api", setTenant("acme"))
		v1 := api.Group("/v1", extra...)
		ginmcp.Mount(v1, "/mcp", endpoint)
		r.GET("/other", setTenant("other"), func(c *gin.Context) { c.String(http.StatusOK, "ok") })
		return r
	}
}

// TestEras drives the endpoint in a nested group with go-sdk clients of
// every era: the gin keys reach tool handlers, progress is not buffered by
// gin's writer, cancellation reaches the tool, and the 2024-11-05 endpoint
// event names the URL under the group prefix.
func TestEras(t *testing.T) {
	t.Parallel()
	p, base := adaptertest.Serve(t, describe, router())
	adaptertest.CheckEras(t, p, base, "/api/v1/mcp", "acme /api/v1/mcp")
}

// TestContextOutlivesRequest runs a 2024-11-05 call, whose POST is
// answered 202 before the tool runs, while gin serves other requests and
// recycles its contexts: FromContext still returns the call's own values.
func TestContextOutlivesRequest(t *testing.T) {
	t.Parallel()
	p, base := adaptertest.Serve(t, describe, router())
	res, err := adaptertest.CallLate(t, p, base+"/api/v1/mcp", base+"/other")
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "acme /api/v1/mcp" {
		t.Errorf("tool saw %q after its request ended, want %q", got, "acme /api/v1/mcp")
	}
}

// TestMiddlewareAuth runs auth.RequireBearer as gin middleware through
// Middleware: without a token the chain stops at a 401 challenge; with one
// the verified caller reaches the tool next to the gin keys.
func TestMiddlewareAuth(t *testing.T) {
	t.Parallel()
	requireBearer := adaptertest.RequireBearer("/api/v1/mcp")
	var after atomic.Int32
	counter := func(c *gin.Context) { after.Add(1); c.Next() }
	_, base := adaptertest.Serve(t, describe, router(ginmcp.Middleware(requireBearer), counter))
	url := base + "/api/v1/mcp"

	adaptertest.CheckChallenge(t, url)
	if n := after.Load(); n != 0 {
		t.Errorf("the gin chain ran on after a refused token (%d times)", n)
	}
	adaptertest.CheckAuthorized(t, url, "acme /api/v1/mcp")
}

// TestMethods checks that Mount hands every method to the transport: a CORS
// preflight, a DELETE and an unknown method get the transport's answers,
// not gin's 404.
func TestMethods(t *testing.T) {
	t.Parallel()
	_, base := adaptertest.Serve(t, describe, router())
	adaptertest.CheckMethods(t, base+"/api/v1/mcp")
}

// TestResponseController checks what the transport's SSE writer relies on:
// through gin's writer and middleware, http.ResponseController can flush
// and set write deadlines.
func TestResponseController(t *testing.T) {
	t.Parallel()
	adaptertest.CheckResponseController(t, func(h http.HandlerFunc) http.Handler {
		r := gin.New()
		r.Use(gin.LoggerWithWriter(io.Discard), gin.Recovery())
		r.GET("/", gin.WrapF(h))
		return r
	})
}
