package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/examples/internal/demotest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRun serves the example and drives its tools in every era.
func TestRun(t *testing.T) {
	base, _ := demotest.Start(t, func(ctx context.Context, ln net.Listener, out io.Writer) error {
		return run(ctx, ln, false, out)
	})
	demotest.CheckTools(t, base+"/api/mcp", "", "[anonymous caller]", "[chi route /api/mcp")
}

// TestRunAuth serves the example with -auth: requests without a token are
// challenged, the metadata is published, and the printed token works.
func TestRunAuth(t *testing.T) {
	base, out := demotest.Start(t, func(ctx context.Context, ln net.Listener, out io.Writer) error {
		return run(ctx, ln, true, out)
	})
	token := out.Line(t, "bearer token: ")
	resp, err := http.Post(base+"/api/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("no token: %s, WWW-Authenticate %q", resp.Status, resp.Header.Get("WWW-Authenticate"))
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
	demotest.CheckTools(t, base+"/api/mcp", token, "[caller dev-user, scopes [mcp]]")
}
