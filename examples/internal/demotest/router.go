package demotest

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/examples/internal/demo"
)

// The router examples serve the demo tools at /api/mcp.

// CheckRun serves a router example without auth and drives its tools in
// every era: echo must show an anonymous caller and contain route, the
// router's view of the call.
func CheckRun(t *testing.T, run demo.RouterRun, route string) {
	base, _ := Start(t, func(ctx context.Context, ln net.Listener, out io.Writer) error {
		return run(ctx, ln, false, out)
	})
	CheckTools(t, base+"/api/mcp", "", "[anonymous caller]", route)
}

// CheckRunAuth serves a router example with auth: requests without a
// token are challenged (readably from a browser on an allowed origin), the
// metadata is published, and the printed token works in every era.
func CheckRunAuth(t *testing.T, run demo.RouterRun) {
	base, out := Start(t, func(ctx context.Context, ln net.Listener, out io.Writer) error {
		return run(ctx, ln, true, out)
	})
	token := out.Line(t, "bearer token: ")
	// From a browser page on an allowed origin, the challenge must be
	// readable: CORS headers on the 401 the auth middleware answers.
	const origin = "http://localhost:5173"
	req, _ := http.NewRequest(http.MethodPost, base+"/api/mcp", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", origin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("no token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != origin || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
		t.Errorf("no token, Origin %s: Access-Control-Allow-Origin %q, Expose-Headers %q: a browser cannot read the challenge", origin, got, resp.Header.Get("Access-Control-Expose-Headers"))
	}
	resp, err = http.Get(base + "/.well-known/oauth-protected-resource/api/mcp")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), base+"/api/mcp") {
		t.Errorf("metadata: %s %s", resp.Status, body)
	}
	CheckTools(t, base+"/api/mcp", token, "[caller dev-user, scopes [mcp]]")
}
