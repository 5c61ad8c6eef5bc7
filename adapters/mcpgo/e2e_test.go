package mcpgo_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/httptransport"
)

// eras are the ones every test runs: go-sdk's Streamable HTTP client at
// 2026-07-28 and 2025-11-25, and its HTTP+SSE client at 2024-11-05.
var eras = []string{httptransport.Version20260728, httptransport.Version20251125, httptransport.Version20241105}

// connect connects a go-sdk client at era with opts; hc (nil for the
// default) makes its requests.
func connect(t *testing.T, url, era string, hc *http.Client, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1.0.0"}, opts)
	var tr sdk.Transport = &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc}
	if era == httptransport.Version20241105 {
		tr = &sdk.SSEClientTransport{Endpoint: url, HTTPClient: hc}
	}
	// go-sdk's SSE client keeps its event stream on Connect's context.
	ctx, cancel := context.WithCancel(context.Background())
	timer := time.AfterFunc(wait, cancel)
	cs, err := client.Connect(ctx, tr, &sdk.ClientSessionOptions{ProtocolVersion: era})
	timer.Stop()
	if err != nil {
		cancel()
		t.Fatalf("connect at %s: %v", era, err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		cancel()
	})
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		t.Fatalf("negotiated %s, want %s", got, era)
	}
	return cs
}

// call calls a tool and returns its text, failing the test on errors.
func call(t *testing.T, cs *sdk.ClientSession, params *sdk.CallToolParams) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s: %v", params.Name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: content %v", params.Name, res.Content)
	}
	text := res.Content[0].(*sdk.TextContent).Text
	if res.IsError {
		t.Fatalf("%s: tool error %q", params.Name, text)
	}
	return text
}

// headerClient sends X-Probe: probe on every request.
func headerClient() *http.Client {
	return &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("X-Probe", "probe")
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestEras: in every era, the tool sees the request's HTTP header and the
// client's info, progress notifications arrive in order, and cancelling
// the client's call cancels the tool's context (2026-07-28: the client
// drops the request; 2025-era: notifications/cancelled).
func TestEras(t *testing.T) {
	f := newFixture(t, nil)
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Run("context", func(t *testing.T) {
				cs := connect(t, f.url, era, headerClient(), nil)
				got := call(t, cs, &sdk.CallToolParams{Name: "whoami", Arguments: map[string]any{}})
				if want := "user=- header=probe client=test"; got != want {
					t.Errorf("tool saw %q, want %q", got, want)
				}
			})
			t.Run("progress", func(t *testing.T) {
				token := "p-" + era
				got := make(chan float64, 10)
				cs := connect(t, f.url, era, nil, &sdk.ClientOptions{
					ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
						if req.Params.ProgressToken == any(token) {
							got <- req.Params.Progress
						}
					},
				})
				params := &sdk.CallToolParams{Name: "progress", Arguments: map[string]any{"count": 5}}
				params.SetProgressToken(token)
				if text := call(t, cs, params); text != token {
					t.Fatalf("progress = %q", text)
				}
				for want := 1.0; want <= 5; want++ {
					select {
					case v := <-got:
						if v != want {
							t.Errorf("progress %v, want %v", v, want)
						}
					case <-time.After(wait):
						t.Fatalf("progress #%v never arrived", want)
					}
				}
			})
			t.Run("cancel", func(t *testing.T) {
				key := "block-" + era
				cs := connect(t, f.url, era, nil, nil)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				errc := make(chan error, 1)
				go func() {
					_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "block", Arguments: map[string]any{"key": key}})
					errc <- err
				}()
				waitFor(t, f.started, key)
				cancel()
				waitFor(t, f.cancelled, key)
				if err := <-errc; !errors.Is(err, context.Canceled) {
					t.Errorf("CallTool error = %v, want context.Canceled", err)
				}
			})
		})
	}
}
