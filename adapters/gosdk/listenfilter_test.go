package gosdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// rawListen is a 2026-07-28 subscriptions/listen read event by event.
type rawListen struct {
	resp *http.Response
	r    *sse.Reader
}

// openListen opens a listen with the given notifications filter (JSON)
// and reads its acknowledgement, which it returns.
func openListen(ctx context.Context, t *testing.T, url, id, filter string) (*rawListen, *jsonrpc.Message) {
	t.Helper()
	header := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "subscriptions/listen"}
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"subscriptions/listen","params":{"notifications":` + filter + `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	resp := rawPost(ctx, t, url, header, body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		resp.Body.Close()
		t.Fatalf("listen %s: %d %s", id, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	l := &rawListen{resp: resp, r: sse.NewReader(bufio.NewReader(resp.Body))}
	t.Cleanup(func() { resp.Body.Close() })
	ack := l.next(t)
	if ack.Method != "notifications/subscriptions/acknowledged" {
		t.Fatalf("listen %s: first message %s, want the acknowledgement", id, ack.Method)
	}
	return l, ack
}

// next returns the stream's next JSON-RPC message.
func (l *rawListen) next(t *testing.T) *jsonrpc.Message {
	t.Helper()
	for {
		e, err := l.r.Next()
		if err != nil {
			t.Fatalf("reading the listen: %v", err)
		}
		if e.IsComment || len(e.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// notice is what a listen notification says: its method, the resource for
// an update, and the subscription id it carries.
type notice struct {
	method, uri, subID string
}

func (n notice) String() string { return strings.TrimSpace(n.method + " " + n.uri + " sub=" + n.subID) }

func noticeOf(t *testing.T, m *jsonrpc.Message) notice {
	t.Helper()
	var p struct {
		URI  string                     `json:"uri"`
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatalf("%s params %s: %v", m.Method, m.Params, err)
	}
	return notice{method: m.Method, uri: p.URI, subID: string(p.Meta["io.modelcontextprotocol/subscriptionId"])}
}

// until reads notices until want has arrived, and returns every notice
// read (want last).
func (l *rawListen) until(t *testing.T, want notice) []notice {
	t.Helper()
	var got []notice
	for {
		n := noticeOf(t, l.next(t))
		got = append(got, n)
		if n == want {
			return got
		}
	}
}

// untilAll reads the listen until every notice of want has come, in any
// order, and returns all it read.
func (l *rawListen) untilAll(t *testing.T, want []notice) []notice {
	t.Helper()
	missing := map[notice]bool{}
	for _, w := range want {
		missing[w] = true
	}
	var got []notice
	for len(missing) > 0 {
		n := noticeOf(t, l.next(t))
		got = append(got, n)
		delete(missing, n)
	}
	return got
}

// TestListensGetOnlyTheirFilter: three listens with different filters
// share the engine's one watcher. Each gets what it asked for, tagged with
// its own subscription id, and nothing another listen asked for: a tools
// change does not reach a prompts listen, a resource's update goes only
// to the listens of that URI. A last update of a URI all three watch marks
// the end, since a listen's notifications arrive in order.
func TestListensGetOnlyTheirFilter(t *testing.T) {
	t.Parallel()
	const uriA, uriB, mark = "file:///a", "file:///b", "file:///mark"
	subscribed := make(chan string, 16)
	server := mcp.NewServer(&mcp.Implementation{Name: "filters", Version: "1.0.0"}, &mcp.ServerOptions{
		SubscribeHandler:   func(_ context.Context, r *mcp.SubscribeRequest) error { subscribed <- r.Params.URI; return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	noop := func(context.Context, *mcp.CallToolRequest, echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	}
	mcp.AddTool(server, &mcp.Tool{Name: "t0"}, noop)
	server.AddPrompt(&mcp.Prompt{Name: "p0"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	for _, u := range []string{uriA, uriB, mark} {
		server.AddResource(&mcp.Resource{URI: u, Name: u}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{}, nil
		})
	}
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, nil)
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	url := srv.URL + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	tools, _ := openListen(ctx, t, url, "1", `{"toolsListChanged":true,"resourceSubscriptions":["`+mark+`"]}`)
	prompts, _ := openListen(ctx, t, url, `"p"`, `{"promptsListChanged":true,"resourceSubscriptions":["`+uriA+`","`+mark+`"]}`)
	res, _ := openListen(ctx, t, url, "3", `{"resourcesListChanged":true,"resourceSubscriptions":["`+uriB+`","`+mark+`"]}`)

	// Each listen's SDK session subscribes while the SDK grants the
	// listen, then gives way to the engine's watcher, which subscribes once
	// per URI, whatever the number of listens: once each, plus one.
	got := map[string]int{}
	for len(subscribed) > 0 {
		got[<-subscribed]++
	}
	if want := map[string]int{uriA: 2, uriB: 2, mark: 4}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SubscribeHandler calls per URI: %v, want %v", got, want)
	}

	mcp.AddTool(server, &mcp.Tool{Name: "t1"}, noop)
	if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uriA}); err != nil {
		t.Fatal(err)
	}
	if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uriB}); err != nil {
		t.Fatal(err)
	}
	server.AddPrompt(&mcp.Prompt{Name: "p1"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{}, nil
	})
	server.AddResource(&mcp.Resource{URI: "file:///c", Name: "c"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	expect := []struct {
		l     *rawListen
		subID string
		want  []notice
	}{
		{tools, "1", []notice{{method: "notifications/tools/list_changed", subID: "1"}}},
		{prompts, `"p"`, []notice{{method: "notifications/resources/updated", uri: uriA, subID: `"p"`}, {method: "notifications/prompts/list_changed", subID: `"p"`}}},
		{res, "3", []notice{{method: "notifications/resources/updated", uri: uriB, subID: "3"}, {method: "notifications/resources/list_changed", subID: "3"}}},
	}
	// Each listen's own notices first (the SDK announces list changes
	// after 10 ms, so they come in any order), then the mark.
	seen := make([][]notice, len(expect))
	for i, e := range expect {
		seen[i] = e.l.untilAll(t, e.want)
	}
	if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: mark}); err != nil {
		t.Fatal(err)
	}
	for i, e := range expect {
		seen[i] = append(seen[i], e.l.until(t, notice{method: "notifications/resources/updated", uri: mark, subID: e.subID})...)
		allowed := map[notice]bool{{method: "notifications/resources/updated", uri: mark, subID: e.subID}: true}
		for _, w := range e.want {
			allowed[w] = true
		}
		for _, n := range seen[i] {
			if !allowed[n] {
				t.Errorf("listen %s received %v, which it did not ask for", e.subID, n)
			}
		}
	}
}

// TestListenWatchEndsWithLastListen: the engine's watcher stays
// subscribed to a resource while any listen watches it, and unsubscribes
// (the server's UnsubscribeHandler runs) once the last has gone, so that a
// server that tracks subscriptions sees nobody watching. The SDK session
// of each listen unsubscribes once as it gives way to the watcher.
func TestListenWatchEndsWithLastListen(t *testing.T) {
	t.Parallel()
	const uri = "file:///w"
	var unsubscribed atomic.Int32
	server := mcp.NewServer(&mcp.Implementation{Name: "unsub", Version: "1.0.0"}, &mcp.ServerOptions{
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { unsubscribed.Add(1); return nil },
	})
	server.AddResource(&mcp.Resource{URI: uri, Name: "w"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{}, nil
	})
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := httptransport.New(engine, nil)
	srv := httptest.NewServer(h)
	stopAtCleanup(t, h, srv, engine)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, _ := openListen(ctx, t, srv.URL+"/mcp", "1", `{"resourceSubscriptions":["`+uri+`"]}`)
	second, _ := openListen(ctx, t, srv.URL+"/mcp", "2", `{"resourceSubscriptions":["`+uri+`"]}`)
	waitUntil(t, "the listens' own SDK sessions to unsubscribe", func() bool { return unsubscribed.Load() == 2 })
	first.resp.Body.Close()
	// The second still gets the resource's updates.
	if err := server.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	second.until(t, notice{method: "notifications/resources/updated", uri: uri, subID: "2"})
	if n := unsubscribed.Load(); n != 2 {
		t.Fatalf("%d unsubscriptions with a listen still watching, want 2", n)
	}
	second.resp.Body.Close()
	waitUntil(t, "the watcher to unsubscribe", func() bool { return unsubscribed.Load() == 3 })
}
