package chimcp_test

import (
	"compress/gzip"
	"context"
	"io"
	"log"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	chimcp "github.com/mcpmount/mcpmount/adapters/chi"
	"github.com/mcpmount/mcpmount/adapters/internal/adaptertest"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

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

// router returns the route for adaptertest.Serve: it mounts endpoint at
// /api/t/{tenant}/mcp (a Route inside a Mount) behind RequestID, Logger,
// Recoverer and Compress, with extra middleware on the MCP route; and
// again at /slow/mcp under middleware.Timeout.
func router(extra ...func(http.Handler) http.Handler) func(endpoint http.Handler) http.Handler {
	return func(endpoint http.Handler) http.Handler {
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
}

// TestEras drives the endpoint through a Route inside a Mount with go-sdk
// clients of every era: URL parameters and RequestID reach tool handlers,
// progress is not buffered by Compress or Logger, cancellation reaches the
// tool, and the 2024-11-05 endpoint event names the URL under the prefix.
func TestEras(t *testing.T) {
	t.Parallel()
	p, base := adaptertest.Serve(t, describe, router())
	adaptertest.CheckEras(t, p, base, "/api/t/acme/mcp", want)
}

// TestCompressIsActive shows that Compress does compress the endpoint's
// JSON answers, so the progress test above ran through a live compressor.
func TestCompressIsActive(t *testing.T) {
	t.Parallel()
	_, base := adaptertest.Serve(t, describe, router())
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{},"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest(http.MethodPost, base+"/api/t/acme/mcp", strings.NewReader(body))
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
	t.Parallel()
	p, base := adaptertest.Serve(t, describe, router())
	res, err := adaptertest.CallLate(t, p, base+"/api/t/acme/mcp", base+"/api/t/other/other")
	var got string
	if err != nil {
		got = err.Error()
	} else {
		got = res.Content[0].(*mcp.TextContent).Text
	}
	if got != want {
		t.Errorf("tool saw %q after its request ended, want %q", got, want)
	}
}

// TestTimeoutKillsModernCalls shows why the endpoint belongs outside
// middleware.Timeout: a 2026-07-28 call under it is cancelled when the
// timeout expires; a 2025-era call runs on but its client gets a 504; the
// same call on the route without Timeout runs on and is answered. In a
// synctest bubble, where the timeout and the waits past it run on the
// bubble's clock.
func TestTimeoutKillsModernCalls(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mn := &testutil.MemNet{}
		p, base := adaptertest.ServeOn(t, mn, describe, router())

		cs := adaptertest.Connect(t, base+"/slow/mcp", httptransport.Version20260728, mn.Client(), nil)
		start := time.Now()
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: adaptertest.KeyArgs{Key: "under-timeout"}})
		adaptertest.WaitFor(t, p.Cancelled, "under-timeout")
		if err == nil || time.Since(start) > 5*time.Second {
			t.Errorf("call under Timeout: err %v after %s, want an error after about 300ms", err, time.Since(start))
		}

		// A 2025-era call is not cancelled when its request ends, but its
		// client gets Timeout's 504 all the same, once the call ends (the
		// call runs on the request's goroutine, which Timeout waits for).
		cs = adaptertest.Connect(t, base+"/slow/mcp", httptransport.Version20251125, mn.Client(), nil)
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: adaptertest.KeyArgs{Key: "2025-under-timeout"}})
			done <- err
		}()
		adaptertest.WaitFor(t, p.Started, "2025-under-timeout")
		time.Sleep(600 * time.Millisecond) // twice the timeout: room for a wrong cancellation to show
		select {
		case key := <-p.Cancelled:
			t.Errorf("%s was cancelled", key)
		default:
		}
		p.Open("2025-under-timeout")
		if err := <-done; err == nil || !strings.Contains(err.Error(), "Gateway Timeout") {
			t.Errorf("2025-era call under Timeout: %v, want Gateway Timeout", err)
		}

		cs = adaptertest.Connect(t, base+"/api/t/acme/mcp", httptransport.Version20260728, mn.Client(), nil)
		go func() {
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "block", Arguments: adaptertest.KeyArgs{Key: "no-timeout"}})
			done <- err
		}()
		adaptertest.WaitFor(t, p.Started, "no-timeout")
		time.Sleep(600 * time.Millisecond) // twice the timeout
		p.Open("no-timeout")
		if err := <-done; err != nil {
			t.Errorf("call outside Timeout: %v", err)
		}
	})
}

// TestAuthMiddleware uses auth.RequireBearer as it is, as chi middleware
// (r.With): without a token a 401 challenge; with one the verified caller
// reaches the tool next to the URL parameters.
func TestAuthMiddleware(t *testing.T) {
	t.Parallel()
	_, base := adaptertest.Serve(t, describe, router(adaptertest.RequireBearer("/api/t/acme/mcp")))
	url := base + "/api/t/acme/mcp"
	adaptertest.CheckChallenge(t, url)
	adaptertest.CheckAuthorized(t, url, want)
}

// TestMethods checks that Mount hands every method to the transport.
func TestMethods(t *testing.T) {
	t.Parallel()
	_, base := adaptertest.Serve(t, describe, router())
	adaptertest.CheckMethods(t, base+"/api/t/acme/mcp")
}

// TestResponseController checks what the transport's SSE writer relies on:
// through the writers of Logger and Compress, http.ResponseController can
// flush and set write deadlines on an event stream.
func TestResponseController(t *testing.T) {
	t.Parallel()
	adaptertest.CheckResponseController(t, func(h http.HandlerFunc) http.Handler {
		r := chi.NewRouter()
		r.Use(middleware.RequestLogger(&middleware.DefaultLogFormatter{Logger: log.New(io.Discard, "", 0)}), middleware.Compress(5))
		r.Get("/", func(w http.ResponseWriter, req *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			h(w, req)
		})
		return r
	})
}
