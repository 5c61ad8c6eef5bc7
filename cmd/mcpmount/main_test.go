package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/internal/stdiotest"
)

func TestMain(m *testing.M) {
	stdiotest.MaybeChild()         // the Go servers of most tests are this binary
	if os.Getenv(childEnv) != "" { // and so is TestHealthz's
		serveChild()
		return
	}
	goleak.VerifyTestMain(m)
}

// servers are the stdio servers the tests serve, by name: the Go stand-in
// for the reference everything server (a go-sdk server, which this test
// binary becomes), and the reference server itself, which needs Node and
// npm ci (skipped without them, unless MCPMOUNT_REQUIRE_NODE=1, as in CI).
var servers = []struct {
	name    string
	command func(t *testing.T) []string
}{
	{"go", func(t *testing.T) []string { return stdiotest.Command(t, stdiotest.Everything) }},
	{"everything", func(t *testing.T) []string { return stdiotest.ReferenceServer(t, "../..") }},
}

// eachServer runs f against each server, in parallel subtests of a
// parallel test.
func eachServer(t *testing.T, f func(t *testing.T, command []string)) {
	t.Parallel()
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			t.Parallel()
			f(t, srv.command(t))
		})
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var pidRE = regexp.MustCompile(`msg="stdio: MCP server started" child=\S+ pid=(\d+)`)

// childPids are the pids of the children the logs say were started.
func childPids(logs string) []int {
	var out []int
	for _, m := range pidRE.FindAllStringSubmatch(logs, -1) {
		n, _ := strconv.Atoi(m[1])
		out = append(out, n)
	}
	return out
}

func assertGone(t *testing.T, logs string) {
	t.Helper()
	pids := childPids(logs)
	if len(pids) == 0 {
		t.Fatalf("no child start logged:\n%s", logs)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("child %d still exists after shutdown (kill 0: %v)", pid, err)
		}
	}
}

// bearer adds a token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(ctx context.Context, url, version, token string) (*mcp.ClientSession, error) {
	hc := &http.Client{}
	if token != "" {
		hc.Transport = bearer{token}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "cmd-test", Version: "1.0.0"}, nil)
	return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: version})
}

// waitListening reads the "listening on" line from out.
func waitListening(t *testing.T, out io.Reader) string {
	t.Helper()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v", err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok {
		t.Fatalf("first line %q", line)
	}
	return url
}

// TestStdioWithToken serves each stdio server with --token-file:
// clients without the token are refused, clients with it are served at
// 2026-07-28 and 2025-11-25; the end of ctx stops the child.
func TestStdioWithToken(t *testing.T) {
	eachServer(t, func(t *testing.T, command []string) {
		dir := t.TempDir()
		tokenFile := filepath.Join(dir, "token")
		if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		outR, outW := io.Pipe()
		var logs syncBuffer
		done := make(chan error, 1)
		args := append([]string{"stdio", "--addr", "127.0.0.1:0", "--path", "/x/mcp", "--token-file", tokenFile, "--"}, command...)
		go func() {
			done <- run(ctx, args, outW, &logs)
			outW.Close()
		}()
		url := waitListening(t, outR)
		go func() { _, _ = io.Copy(io.Discard, outR) }()
		if !strings.HasSuffix(url, "/x/mcp") {
			t.Errorf("url %q does not end in --path", url)
		}
		cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer ccancel()
		for _, version := range []string{"2026-07-28", "2025-11-25"} {
			if cs, err := connect(cctx, url, version, ""); err == nil {
				cs.Close()
				t.Errorf("%s: a client without the token connected", version)
			}
			if cs, err := connect(cctx, url, version, "wrong"); err == nil {
				cs.Close()
				t.Errorf("%s: a client with a wrong token connected", version)
			}
			cs, err := connect(cctx, url, version, "s3cret")
			if err != nil {
				t.Fatalf("%s: connect with the token: %v", version, err)
			}
			res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "via " + version}})
			if err != nil {
				t.Fatalf("%s: echo: %v", version, err)
			}
			if got := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(got, "via "+version) {
				t.Errorf("%s: echo gave %q", version, got)
			}
			cs.Close()
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("run: %v", err)
		}
		assertGone(t, logs.String())
	})
}

// TestStdioSIGTERM builds the command, serves each stdio server without
// auth, and stops it with SIGTERM: it exits 0 and leaves no child.
func TestStdioSIGTERM(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "mcpmount")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	eachServer(t, func(t *testing.T, command []string) {
		cmd := exec.Command(bin, append([]string{"stdio", "-addr", "127.0.0.1:0", "--"}, command...)...)
		var logs syncBuffer
		cmd.Stderr = &logs
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		url := waitListening(t, out)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := connect(ctx, url, "2025-11-25", "")
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		if _, err := cs.ListTools(ctx, nil); err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		cs.Close()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
		assertGone(t, logs.String())
	})
}

// TestStdioUsage: no command is a usage error, not a start.
func TestStdioUsage(t *testing.T) {
	t.Parallel()
	var stderr bytes.Buffer
	if err := run(context.Background(), []string{"stdio", "--addr", "127.0.0.1:0"}, io.Discard, &stderr); !errors.Is(err, errUsage) {
		t.Errorf("no command: %v, want the usage error", err)
	}
	if !strings.Contains(stderr.String(), "usage: mcpmount stdio") {
		t.Errorf("no usage printed: %q", stderr.String())
	}
	if err := run(context.Background(), []string{"bogus"}, io.Discard, io.Discard); !errors.Is(err, errUsage) {
		t.Errorf("unknown subcommand: %v", err)
	}
}
