package chimcp_test

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	chimcp "github.com/mcpmount/mcpmount/adapters/chi"
	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
)

// describe is what a tool sees of the chi request behind its call: the
// tenant URL parameter, the route pattern, and whether RequestID ran.
func describe(ctx context.Context) string {
	rid := "no-request-id"
	if middleware.GetReqID(ctx) != "" {
		rid = "request-id"
	}
	return chi.URLParamFromCtx(ctx, "tenant") + " " + chi.RouteContext(ctx).RoutePattern() + " " + rid
}

const want = "acme /api/t/{tenant}/mcp request-id"

// router mounts endpoint at /api/t/{tenant}/mcp (a Route inside a Mount)
// behind RequestID, Logger, Recoverer and Compress, with extra middleware
// on the MCP route; and again at /slow/mcp under middleware.Timeout.
func router(endpoint http.Handler, extra ...func(http.Handler) http.Handler) http.Handler {
	r := chi.NewRouter()
	logger := &middleware.DefaultLogFormatter{Logger: log.New(io.Discard, "", 0), NoColor: true}
	r.Use(middleware.RequestID, middleware.RequestLogger(logger), middleware.Recoverer)
	api := chi.NewRouter()
	api.Use(middleware.Compress(5))
	api.Route("/t/{tenant}", func(r chi.Router) {
		chimcp.Mount(r.With(extra...), "/mcp", endpoint)
		r.Get("/other", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	})
	r.Mount("/api", api)
	chimcp.Mount(r.With(middleware.Timeout(300*time.Millisecond)), "/slow/mcp", endpoint)
	return r
}

// TestEras drives the endpoint through a Route inside a Mount with go-sdk
// clients of every era: URL parameters and RequestID reach tool handlers,
// progress is not buffered by Compress or Logger, cancellation reaches the
// tool, and the 2024-11-05 endpoint event names the URL under the prefix.
func TestEras(t *testing.T) {
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h) })
	url := srv.URL + "/api/t/acme/mcp"
	for _, era := range eras {
		t.Run(era, func(t *testing.T) { checkEra(t, p, url, era, want) })
	}
	t.Run("legacy endpoint event", func(t *testing.T) { checkLegacyEndpoint(t, url, "/api/t/acme/mcp") })
}

// TestCompressIsActive shows that Compress does compress the endpoint's
// JSON answers, so the progress test above ran through a live compressor.
func TestCompressIsActive(t *testing.T) {
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h) })
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/t/acme/mcp", strings.NewReader(body))
	for k, v := range map[string]string{
		"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "Accept-Encoding": "gzip",
		"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "whoami",
	} {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("%s, Content-Type %q, Content-Encoding %q", resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := io.ReadAll(zr); !strings.Contains(string(data), want) {
		t.Errorf("body %s", data)
	}
}

// TestURLParamsOutliveRequest runs a 2024-11-05 call, whose POST is
// answered 202 before the tool runs, while chi serves other requests and
// recycles its route contexts: the tool still reads its own parameters.
func TestURLParamsOutliveRequest(t *testing.T) {
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h) })
	cs := connect(t, srv.URL+"/api/t/acme/mcp", httptransport.Version20241105, nil, nil)
	done := make(chan string, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: keyArgs{Key: "late"}})
		if err != nil {
			done <- err.Error()
			return
		}
		done <- res.Content[0].(*mcp.TextContent).Text
	}()
	waitFor(t, p.started, "late")
	for range 50 {
		resp, err := http.Get(srv.URL + "/api/t/other/other")
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	p.open("late")
	if got := <-done; got != want {
		t.Errorf("tool saw %q after its request ended, want %q", got, want)
	}
}

// TestTimeoutKillsModernCalls shows why the endpoint belongs outside
// middleware.Timeout: a 2026-07-28 call under it is cancelled when the
// timeout expires; a 2025-era call runs on but its client gets a 504; the
// same call on the route without Timeout runs on and is answered.
func TestTimeoutKillsModernCalls(t *testing.T) {
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h) })

	cs := connect(t, srv.URL+"/slow/mcp", httptransport.Version20260728, nil, nil)
	start := time.Now()
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: keyArgs{Key: "under-timeout"}})
	waitFor(t, p.cancelled, "under-timeout")
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("call under Timeout: err %v after %s, want an error after about 300ms", err, time.Since(start))
	}

	// A 2025-era call is not cancelled when its request ends, but its
	// client gets Timeout's 504 all the same.
	cs = connect(t, srv.URL+"/slow/mcp", httptransport.Version20251125, nil, nil)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: keyArgs{Key: "2025-under-timeout"}})
		done <- err
	}()
	waitFor(t, p.started, "2025-under-timeout")
	if err := <-done; err == nil || !strings.Contains(err.Error(), "Gateway Timeout") {
		t.Errorf("2025-era call under Timeout: %v, want Gateway Timeout", err)
	}
	time.Sleep(100 * time.Millisecond) // room for a wrong cancellation to show
	select {
	case key := <-p.cancelled:
		t.Errorf("%s was cancelled", key)
	default:
	}
	p.open("2025-under-timeout")

	cs = connect(t, srv.URL+"/api/t/acme/mcp", httptransport.Version20260728, nil, nil)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: keyArgs{Key: "no-timeout"}})
		done <- err
	}()
	waitFor(t, p.started, "no-timeout")
	time.Sleep(600 * time.Millisecond) // twice the timeout
	p.open("no-timeout")
	if err := <-done; err != nil {
		t.Errorf("call outside Timeout: %v", err)
	}
}

// TestAuthMiddleware uses auth.RequireBearer as it is, as chi middleware
// (r.With): without a token a 401 challenge; with one the verified caller
// reaches the tool next to the URL parameters.
func TestAuthMiddleware(t *testing.T) {
	verifier := auth.VerifierFunc(func(_ context.Context, token string) (*identity.Info, error) {
		if token != "alice-token" {
			return nil, auth.InvalidToken("unknown token", nil)
		}
		return &identity.Info{Subject: "alice", Issuer: "test"}, nil
	})
	requireBearer := auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource/api/t/acme/mcp"})
	p := newProbe(describe)
	srv := serve(t, p, func(h http.Handler) http.Handler { return router(h, requireBearer) })
	url := srv.URL + "/api/t/acme/mcp"

	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
		t.Errorf("no token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	hc := &http.Client{Transport: bearer("alice-token")}
	t.Cleanup(hc.CloseIdleConnections)
	for _, era := range []string{httptransport.Version20260728, httptransport.Version20241105} {
		cs := connect(t, url, era, hc, nil)
		if got := call(t, cs, &mcp.CallToolParams{Name: "whoami", Arguments: keyArgs{}}); got != want+" user=alice" {
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

// TestMethods checks that Mount hands every method to the transport.
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
		req, _ := http.NewRequest(tc.method, srv.URL+"/api/t/acme/mcp", nil)
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
// through the writers of Logger and Compress, http.ResponseController can
// flush and set write deadlines on an event stream.
func TestResponseController(t *testing.T) {
	errc := make(chan error, 1)
	r := chi.NewRouter()
	r.Use(middleware.RequestLogger(&middleware.DefaultLogFormatter{Logger: log.New(io.Discard, "", 0)}), middleware.Compress(5))
	r.Get("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		rc := http.NewResponseController(w)
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
