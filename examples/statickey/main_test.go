package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/examples/internal/demotest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRun serves the recipe: a request without a token gets the RFC 6750
// challenge with resource_metadata (RFC 9728 section 5.1), the metadata is
// served where it points, and the printed token works.
func TestRun(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "dev.key")
	base, out := demotest.Start(t, func(ctx context.Context, ln net.Listener, out io.Writer) error {
		return run(ctx, ln, keyFile, out)
	})
	token := out.Line(t, "bearer token: ")

	resp, err := http.Post(base+"/mcp", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	challenge := resp.Header.Get("WWW-Authenticate")
	const prm = `resource_metadata="`
	i := strings.Index(challenge, prm)
	if resp.StatusCode != http.StatusUnauthorized || i < 0 {
		t.Fatalf("no token: %s, WWW-Authenticate %q; want 401 with resource_metadata", resp.Status, challenge)
	}
	metadataURL, _, _ := strings.Cut(challenge[i+len(prm):], `"`)
	resp, err = http.Get(metadataURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"resource":"`+base+`/mcp"`) {
		t.Errorf("GET %s: %s %s", metadataURL, resp.Status, body)
	}

	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		cs := demotest.Connect(t, base+"/mcp", era, token, nil)
		if got := demotest.Call(t, cs, &mcp.CallToolParams{Name: "whoami"}); got != "dev-user" {
			t.Errorf("%s: whoami = %q, want dev-user", era, got)
		}
	}
}
