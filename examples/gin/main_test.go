package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/examples/internal/demotest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// TestRun serves the example and drives its tools in every era.
func TestRun(t *testing.T) {
	t.Parallel()
	demotest.CheckRun(t, run, "[gin route /api/mcp")
}

// TestRunAuth serves the example with -auth: requests without a token are
// challenged, the metadata is published, and the printed token works.
func TestRunAuth(t *testing.T) {
	t.Parallel()
	demotest.CheckRunAuth(t, run)
}

// TestRunAuthKeyFile serves the example with -auth -auth-key twice on one
// address: the token printed by the first run still works on the second,
// since the key is read back from the file, and the printed curl line
// makes a call that reaches the echo tool as the token's subject.
func TestRunAuthKeyFile(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "dev.key")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	out, stop := serveOn(t, ln, keyFile)
	token := out.Line(t, "bearer token: ")
	curl := out.Line(t, "try: ")
	stop()
	if info, err := os.Stat(keyFile); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file after the first run: %v, %v; want it made with mode 0600", info, err)
	}

	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening again on %s: %v", addr, err)
	}
	out, stop = serveOn(t, ln, keyFile)
	defer stop()
	out.Line(t, "bearer token: ") // serving
	demotest.CheckTools(t, "http://"+addr+"/api/mcp", token, "[caller dev-user, scopes [mcp]]")
	if got := doCurl(t, curl); !strings.Contains(got, `hi [caller dev-user, scopes [mcp]]`) {
		t.Errorf("the printed curl line, run against the second run, answered %q", got)
	}
}

// TestRunAuthKeyFileBad refuses a key file that holds no Ed25519 seed.
func TestRunAuthKeyFileBad(t *testing.T) {
	t.Parallel()
	keyFile := filepath.Join(t.TempDir(), "dev.key")
	if err := os.WriteFile(keyFile, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // a serve that starts ends anyway
	defer cancel()
	err = serve(ctx, ln, true, keyFile, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "Ed25519 seed") {
		t.Fatalf("serve with a bad key file: %v; want an error naming the seed", err)
	}
}

// serveOn runs the example with -auth -auth-key keyFile on ln until stop.
func serveOn(t *testing.T, ln net.Listener, keyFile string) (out *demotest.Output, stop func()) {
	out = &demotest.Output{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, true, keyFile, out) }()
	var once sync.Once
	return out, func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("serve: %v", err)
			}
		})
	}
}

var (
	curlURL    = regexp.MustCompile(`^curl -sS (\S+)`)
	curlHeader = regexp.MustCompile(`-H '([^:']+): ([^']*)'`)
	curlData   = regexp.MustCompile(`-d '([^']*)'`)
)

// doCurl makes the request a printed curl line describes (its URL, -H
// headers and -d body) and returns the answer's body.
func doCurl(t *testing.T, line string) string {
	t.Helper()
	u, data := curlURL.FindStringSubmatch(line), curlData.FindStringSubmatch(line)
	if u == nil || data == nil {
		t.Fatalf("cannot read the curl line %q", line)
	}
	req, err := http.NewRequest(http.MethodPost, u[1], strings.NewReader(data[1]))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range curlHeader.FindAllStringSubmatch(line, -1) {
		req.Header.Set(h[1], h[2])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("curl line: %s %s", resp.Status, body)
	}
	return string(body)
}
