package mcpgo_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/internal/adaptertest"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// TestLogLevel: a 2025-era session's logging/setLevel decides which of a
// tool's log messages reach the client; before it, mcp-go's default
// (error) does.
func TestLogLevel(t *testing.T) {
	f := newFixture(t, nil)
	for _, era := range eras[1:] {
		t.Run(era, func(t *testing.T) {
			logs := make(chan string, 16)
			cs := connect(t, f.url, era, nil, &sdk.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *sdk.LoggingMessageRequest) { logs <- string(req.Params.Level) },
			})
			check := func(want ...string) {
				t.Helper()
				if got := call(t, cs, &sdk.CallToolParams{Name: "log", Arguments: map[string]any{}}); got != "logged" {
					t.Fatalf("log = %q", got)
				}
				var got []string
				for len(got) < len(want) {
					select {
					case l := <-logs:
						got = append(got, l)
					case <-time.After(wait):
						t.Fatalf("logs %v, want %v", got, want)
					}
				}
				select {
				case l := <-logs:
					t.Fatalf("logs %v and %s, want %v", got, l, want)
				case <-time.After(50 * time.Millisecond):
				}
				if !slices.Equal(got, want) {
					t.Errorf("logs %v, want %v", got, want)
				}
			}
			check("error")
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if err := cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "info"}); err != nil {
				t.Fatal(err)
			}
			check("info", "error")
		})
	}
}

// TestBroadcasts: a tool added to the server reaches every era's client
// as tools/list_changed (2025-era: on the session's GET stream, 2026-07-28:
// on its subscriptions/listen stream), and Engine.ResourceUpdated reaches
// the clients subscribed to the resource.
func TestBroadcasts(t *testing.T) {
	f := newFixture(t, nil)
	for i, era := range eras {
		t.Run(era, func(t *testing.T) {
			changed := make(chan struct{}, 64)
			updated := make(chan string, 64)
			cs := connect(t, f.url, era, nil, &sdk.ClientOptions{
				ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
				ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
					updated <- req.Params.URI
				},
			})
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: "test://watched"}); err != nil {
				t.Fatal(err)
			}
			// The client's streams open asynchronously: repeat until
			// the notification arrives.
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for n := 0; ; n++ {
				f.srv.AddTool(mcp.NewTool(fmt.Sprintf("added-%d-%d", i, n)), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("added"), nil
				})
				select {
				case <-changed:
				case <-tick.C:
					continue
				case <-ctx.Done():
					t.Fatal("no tools/list_changed")
				}
				break
			}
			for {
				f.engine.ResourceUpdated("test://watched")
				select {
				case uri := <-updated:
					if uri != "test://watched" {
						t.Fatalf("updated %q", uri)
					}
				case <-tick.C:
					continue
				case <-ctx.Done():
					t.Fatal("no resources/updated")
				}
				break
			}
		})
	}
}

// TestSampling: in a 2025-era session a tool's sampling/createMessage goes
// to the client on the call's stream and the client's answer comes back
// to the tool.
func TestSampling(t *testing.T) {
	f := newFixture(t, nil)
	for _, era := range eras[1:] {
		t.Run(era, func(t *testing.T) {
			cs := connect(t, f.url, era, nil, &sdk.ClientOptions{
				CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
					in := req.Params.Messages[0].Content.(*sdk.TextContent).Text
					return &sdk.CreateMessageResult{Model: "m", Role: "assistant", Content: &sdk.TextContent{Text: "echo " + in}}, nil
				},
			})
			if got := call(t, cs, &sdk.CallToolParams{Name: "sample", Arguments: map[string]any{"prompt": "hi"}}); got != "sampled: echo hi" {
				t.Errorf("sample = %q", got)
			}
		})
	}
}

// TestAuthIdentity: behind auth.RequireBearer, the verified caller reaches
// the tool's context in every era; a request without a token is refused.
func TestAuthIdentity(t *testing.T) {
	f := newFixture(t, adaptertest.RequireBearer("/"))
	adaptertest.CheckChallenge(t, f.url)
	hc := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer alice-token")
		return http.DefaultTransport.RoundTrip(r)
	})}
	for _, era := range eras {
		cs := connect(t, f.url, era, hc, nil)
		if got := call(t, cs, &sdk.CallToolParams{Name: "whoami", Arguments: map[string]any{}}); got != "user=alice header= client=test" {
			t.Errorf("%s: tool saw %q", era, got)
		}
	}
}

// TestStateAcrossInstances: two instances share a SessionStore; a
// 2025-11-25 session initialized and given a log level on one is served
// by the other with the same client info and log level.
func TestStateAcrossInstances(t *testing.T) {
	store := httptransport.NewMemorySessionStore()
	a := newFixtureWith(t, nil, &httptransport.Options{Sessions: store})
	b := newFixtureWith(t, nil, &httptransport.Options{Sessions: store})
	h := rawSession(t, a.url)
	resp := rawPost(context.Background(), t, a.url, h, `{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("setLevel: %s", resp.Status)
	}
	for _, tc := range []struct {
		tool string
		want []string
	}{
		{"whoami", []string{`"user=- header= client=raw"`}},
		{"log", []string{"info", "error", `"logged"`}},
	} {
		resp := rawPost(context.Background(), t, b.url, h, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, tc.tool))
		got := streamSummary(t, resp)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s on the other instance: %v, want %v", tc.tool, got, tc.want)
		}
	}
}

// streamSummary reads a call's answer (JSON or SSE) and lists the levels
// of its log messages, then the answer's first text, quoted.
func streamSummary(t *testing.T, resp *http.Response) []string {
	t.Helper()
	defer resp.Body.Close()
	var msgs []*jsonrpc.Message
	if resp.Header.Get("Content-Type") == "application/json" {
		data, _ := io.ReadAll(resp.Body)
		m, err := jsonrpc.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
	} else {
		r := sse.NewReader(resp.Body)
		for {
			e, err := r.Next()
			if err != nil {
				break
			}
			if e.IsComment || len(e.Data) == 0 {
				continue
			}
			m, err := jsonrpc.Decode(e.Data)
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, m)
		}
	}
	var out []string
	for _, m := range msgs {
		if m.Method == "notifications/message" {
			var p struct {
				Level string `json:"level"`
			}
			_ = json.Unmarshal(m.Params, &p)
			out = append(out, p.Level)
			continue
		}
		if m.IsResponse() {
			var r struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			_ = json.Unmarshal(m.Result, &r)
			if m.Error != nil || len(r.Content) == 0 {
				out = append(out, fmt.Sprintf("error %v", m.Error))
				continue
			}
			out = append(out, fmt.Sprintf("%q", r.Content[0].Text))
		}
	}
	return out
}
