package gosdk_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// loggedStack serves server through the engine and the transport behind
// auth.RequireBearer with a JWTVerifier on a real JWKS endpoint (one
// Ed25519 key, kid "k1"), all on loopback and all logging JSON at Debug to
// logs. It returns the endpoint's URL and the signing key.
func loggedStack(t *testing.T, server *mcp.Server, logs *testutil.CountingLog) (string, ed25519.PrivateKey) {
	t.Helper()
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","alg":"EdDSA","use":"sig","x":%q}]}`, base64.RawURLEncoding.EncodeToString(pub))
	}))
	t.Cleanup(jwks.Close)
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: logger})
	h := httptransport.New(engine, &httptransport.Options{Logger: logger})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	stopAtCleanup(t, h, srv, engine)
	resource := srv.URL + "/mcp"
	verifier, err := auth.NewJWTVerifier(context.Background(), &auth.JWTOptions{Issuer: "https://issuer.test", Audience: resource, JWKSURL: jwks.URL, Algorithms: []string{"EdDSA"}, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = verifier.Close() })
	metadata, _ := auth.MetadataURL(resource)
	mux.Handle("/mcp", auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: metadata, Logger: logger})(h))
	return resource, priv
}

// signed returns a real Ed25519-signed JWT for the resource with the
// given kid.
func signed(t *testing.T, priv ed25519.PrivateKey, resource, kid string) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{
		"iss": "https://issuer.test", "aud": resource, "sub": "user", "scope": "mcp",
		"exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix(),
	})
	tok.Header["kid"] = kid
	s, err := tok.SignedString(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestHugeKidFloodLogsBounded: issue 19 item 2, through the whole stack.
// 100 unauthenticated requests, each carrying a real signed JWT whose kid
// is 700 KiB (68 MiB of WARN logs before), write less than 1 MiB of logs,
// and none reaches the server.
func TestHugeKidFloodLogsBounded(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 64 << 10}
	server := mcp.NewServer(&mcp.Implementation{Name: "logs", Version: "1"}, nil)
	url, priv := loggedStack(t, server, logs)
	tok := signed(t, priv, url, strings.Repeat("k", 700<<10))
	body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 25 {
				req, err := http.NewRequest("POST", url, strings.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Authorization", "Bearer "+tok)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if statuses[http.StatusOK] != 0 || statuses[http.StatusUnauthorized]+statuses[http.StatusServiceUnavailable] != 100 {
		t.Fatalf("statuses %v, want 100 refusals (401 or 503)", statuses)
	}
	if n := logs.Len(); n >= 1<<20 {
		t.Fatalf("100 requests with a 700 KiB kid wrote %d bytes of logs, want < 1 MiB", n)
	}
	if len(logs.Records()) == 0 {
		t.Fatal("the refusals were not logged at all")
	}
	t.Logf("statuses %v, %d bytes of logs", statuses, logs.Len())
}

// TestPanickingToolFloodLogsBounded: a tool that panics with a message
// naming its 700 KiB argument, called 100 times (four at a time) by
// go-sdk's client with a valid token, answers each call with an error and writes less than 1 MiB
// of logs; the panic lines say what was called, quoted.
func TestPanickingToolFloodLogsBounded(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 64 << 10}
	server := mcp.NewServer(&mcp.Implementation{Name: "logs", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "explode"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		panic("cannot handle " + a.Text)
	})
	url, priv := loggedStack(t, server, logs)
	client := mcp.NewClient(&mcp.Implementation{Name: "flood", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hc := &http.Client{Transport: bearerTransport{token: signed(t, priv, url, "k1")}}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	arg := strings.Repeat("a", 700<<10)
	// Four calls at a time on the session, so that the work (mostly the
	// client's and the SDK's JSON) is spread over the cores.
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := next.Add(1); i <= 100; i = next.Add(1) {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "explode", Arguments: map[string]any{"text": arg}})
				if err == nil && (res == nil || !res.IsError) {
					t.Errorf("call %d to a panicking tool succeeded", i)
				}
			}
		})
	}
	wg.Wait()
	if n := logs.Len(); n >= 1<<20 {
		t.Fatalf("100 panicking calls with a 700 KiB argument wrote %d bytes of logs, want < 1 MiB", n)
	}
	panics := 0
	for _, rec := range logs.Records() {
		if rec["msg"] == "gosdk: handler panicked" {
			panics++
			if rec["method"] != `"tools/call"` || !strings.HasPrefix(fmt.Sprint(rec["panic"]), `"cannot handle aaa`) {
				t.Errorf("panic record: method %v, panic %.200v", rec["method"], rec["panic"])
			}
		}
	}
	if panics == 0 {
		t.Errorf("no panic was logged:\n%.2000s", logs.Head())
	}
	t.Logf("%d panic records, %d bytes of logs", panics, logs.Len())
}

// TestCapabilityCheckFailuresLogBounded: issue 31 item 3. A server whose
// own server/discover fails (middleware of the application refusing it)
// fails the engine's capability check and description at every
// 2026-07-28 call; 50 calls write at most 10 lines of each kind, their
// errors quoted.
func TestCapabilityCheckFailuresLogBounded(t *testing.T) {
	t.Parallel()
	logs := &testutil.CountingLog{Keep: 1 << 20}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	server := mcp.NewServer(&mcp.Implementation{Name: "logs", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "server/discover" {
				return nil, errors.New("discovery is\nswitched off")
			}
			return next(ctx, method, req)
		}
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: logger})
	h := httptransport.New(engine, &httptransport.Options{Logger: logger})
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for i := range 50 {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("tools/list %d: %d", i, resp.StatusCode)
		}
	}
	kinds := map[string]int{}
	for _, rec := range logs.Records() {
		msg := fmt.Sprint(rec["msg"])
		kinds[msg]++
		if e, ok := rec["error"].(string); ok && strings.Contains(e, "\n") {
			t.Errorf("%s: error %q not quoted", msg, e)
		}
	}
	if kinds["gosdk: server/discover for the capability check failed"] == 0 {
		t.Fatalf("the failed capability check was not logged: %v", kinds)
	}
	for msg, n := range kinds {
		if n > logval.Burst {
			t.Errorf("%d lines %q, want at most %d", n, msg, logval.Burst)
		}
	}
}
