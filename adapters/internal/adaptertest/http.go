package adaptertest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/auth"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/identity"
)

// CheckMethods checks that the mount at url hands every method to the
// transport: a CORS preflight, a DELETE and an unknown method get the
// transport's answers, not the router's 404.
func CheckMethods(t *testing.T, url string) {
	t.Helper()
	for _, tc := range []struct {
		method string
		header map[string]string
		status int
		check  string // a response header that must be set
	}{
		{http.MethodOptions, map[string]string{"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST"}, http.StatusNoContent, "Access-Control-Allow-Origin"},
		{http.MethodDelete, nil, http.StatusBadRequest, "Content-Type"},
		{http.MethodPut, nil, http.StatusMethodNotAllowed, "Allow"},
		{http.MethodPatch, nil, http.StatusMethodNotAllowed, "Allow"},
	} {
		req, _ := http.NewRequest(tc.method, url, nil)
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

// CheckResponseController serves the router that route builds around h,
// GETs its root, and checks what the transport's SSE writer relies on:
// through the router's writer and middleware, http.ResponseController,
// made by h on the writer it is given, can flush and set write deadlines.
func CheckResponseController(t *testing.T, route func(h http.HandlerFunc) http.Handler) {
	t.Helper()
	errc := make(chan error, 1)
	srv := httptest.NewServer(route(func(w http.ResponseWriter, _ *http.Request) {
		rc := http.NewResponseController(w)
		errc <- errors.Join(rc.SetWriteDeadline(time.Now().Add(time.Minute)), rc.Flush())
	}))
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

// RequireBearer returns auth.RequireBearer for the endpoint at path, with
// a verifier that knows one token, "alice-token", for the user alice.
func RequireBearer(path string) func(http.Handler) http.Handler {
	verifier := auth.VerifierFunc(func(_ context.Context, token string) (*identity.Info, error) {
		if token != "alice-token" {
			return nil, auth.InvalidToken("unknown token", nil)
		}
		return &identity.Info{Subject: "alice", Issuer: "test"}, nil
	})
	return auth.RequireBearer(verifier, &auth.Options{ResourceMetadataURL: "http://127.0.0.1/.well-known/oauth-protected-resource" + path})
}

// CheckChallenge checks that a POST to url without a token is answered
// 401 with a Bearer challenge.
func CheckChallenge(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
		t.Errorf("no token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
}

// CheckAuthorized connects to url with alice's token at 2026-07-28 and at
// 2024-11-05 and checks that whoami sees the router's view of the request
// (want) and the verified caller: want + " user=alice".
func CheckAuthorized(t *testing.T, url, want string) {
	t.Helper()
	hc := &http.Client{Transport: bearer("alice-token")}
	t.Cleanup(hc.CloseIdleConnections)
	for _, era := range []string{httptransport.Version20260728, httptransport.Version20241105} {
		cs := Connect(t, url, era, hc, nil)
		if got := Call(t, cs, &mcp.CallToolParams{Name: "whoami", Arguments: KeyArgs{}}); got != want+" user=alice" {
			t.Errorf("%s: tool saw %q", era, got)
		}
	}
}

// bearer is a RoundTripper that sends itself as a bearer token.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
