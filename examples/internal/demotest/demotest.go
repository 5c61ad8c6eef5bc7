// Package demotest starts the example servers in their tests and drives
// them with the official Go SDK's client.
package demotest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/examples/internal/demo"
	"github.com/mcpmount/mcpmount/internal/testutil"
)

// Eras are the protocol versions the examples serve on one URL; the last
// one is driven with go-sdk's HTTP+SSE client.
var Eras = []string{"2026-07-28", "2025-11-25", "2024-11-05"}

const wait = 10 * time.Second

// Output collects what a server writes, safe for concurrent use.
type Output struct {
	testutil.Buffer
}

// Line waits for a line that starts with prefix and returns the rest.
func (o *Output) Line(t *testing.T, prefix string) string {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		s := o.String()
		for _, line := range strings.Split(s, "\n") {
			if rest, ok := strings.CutPrefix(line, prefix); ok && strings.Contains(s, line+"\n") {
				return rest
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no line %q in the output", prefix)
	return ""
}

// Start runs an example's run function on a loopback port until the test
// ends, and returns its base URL and output.
func Start(t *testing.T, run func(ctx context.Context, ln net.Listener, out io.Writer) error) (string, *Output) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	out := &Output{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, ln, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	return demo.BaseURL(ln), out
}

// Connect connects a go-sdk client to url at era, sending token as a
// bearer token unless it is empty.
func Connect(t *testing.T, url, era, token string, progress func(*mcp.ProgressNotificationClientRequest)) *mcp.ClientSession {
	t.Helper()
	hc := &http.Client{Transport: bearer(token)}
	client := mcp.NewClient(&mcp.Implementation{Name: "demotest", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if progress != nil {
				progress(req)
			}
		},
	})
	var tr mcp.Transport = &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
	if era == "2024-11-05" {
		tr = &mcp.SSEClientTransport{Endpoint: url, HTTPClient: hc}
	}
	ctx, cancel := context.WithCancel(context.Background()) // the SSE client's stream lives on it
	timer := time.AfterFunc(wait, cancel)
	cs, err := client.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: era})
	timer.Stop()
	if err != nil {
		cancel()
		t.Fatalf("connect at %s: %v", era, err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
		hc.CloseIdleConnections()
	})
	return cs
}

// Call calls a tool and returns its text.
func Call(t *testing.T, cs *mcp.ClientSession, params *mcp.CallToolParams) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		t.Fatalf("%s: tool error %q", params.Name, text)
	}
	return text
}

// CheckTools drives the demo tools at url in every era: echo's answer
// must contain each of want, progress must deliver its notifications,
// and slow must stop when the client gives up.
func CheckTools(t *testing.T, url, token string, want ...string) {
	for _, era := range Eras {
		t.Run(era, func(t *testing.T) {
			var mu sync.Mutex
			var got []float64
			cs := Connect(t, url, era, token, func(req *mcp.ProgressNotificationClientRequest) {
				mu.Lock()
				got = append(got, req.Params.Progress)
				mu.Unlock()
			})
			echo := Call(t, cs, &mcp.CallToolParams{Name: "echo", Arguments: demo.EchoArgs{Text: "hi"}})
			for _, w := range want {
				if !strings.Contains(echo, w) {
					t.Errorf("echo = %q, want it to contain %q", echo, w)
				}
			}
			params := &mcp.CallToolParams{Name: "progress", Arguments: demo.ProgressArgs{Steps: 3, DelayMS: 10}}
			params.SetProgressToken("p")
			Call(t, cs, params)
			deadline := time.Now().Add(wait)
			for {
				mu.Lock()
				n := len(got)
				mu.Unlock()
				if n == 3 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("got %d progress notifications, want 3", n)
				}
				time.Sleep(5 * time.Millisecond)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			defer cancel()
			start := time.Now()
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: demo.SlowArgs{Seconds: 60}})
			if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
				t.Errorf("slow: %v after %s", err, time.Since(start))
			}
		})
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}
