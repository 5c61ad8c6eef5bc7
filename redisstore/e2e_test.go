package redisstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/examples/roundrobin"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
	"github.com/mcpmount/mcpmount/sse"
)

type textArgs struct {
	Text string `json:"text"`
}

// instance is one of the two processes of the test: its own Redis
// client, Store, MCP server, handler and HTTP server.
type instance struct {
	name    string
	url     string
	server  *mcp.Server
	store   *redisstore.Store
	answers atomic.Int32 // POSTs of a JSON-RPC response (an answer to a server request)
}

// sessions hides a Store's SessionRelay: a store that only keeps records.
type sessions struct{ httptransport.SessionStore }

// startInstance starts an instance named name; with relay false its
// handler gets the Store without its SessionRelay.
func startInstance(t *testing.T, name string, relay bool) *instance {
	t.Helper()
	store, _ := newStore(t, &redisstore.Options{Prefix: testPrefix(t)})
	return startInstanceOn(t, name, relay, store)
}

// startInstanceOn is startInstance on store, which the test closes.
func startInstanceOn(t *testing.T, name string, relay bool, store *redisstore.Store) *instance {
	t.Helper()
	inst := &instance{name: name}
	var shared httptransport.SessionStore = store
	if !relay {
		shared = sessions{store}
	}
	server := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	inst.server, inst.store = server, store
	mcp.AddTool(server, &mcp.Tool{Name: "where"}, func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
		who := req.Session.InitializeParams().ClientInfo.Name
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " " + who + " " + a.Text}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "sample"}, func(ctx context.Context, req *mcp.CallToolRequest, a textArgs) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{
			Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: a.Text}}},
			MaxTokens: 10,
		})
		if err != nil {
			return nil, nil, err
		}
		text, _ := res.Content.(*mcp.TextContent)
		if text == nil {
			return nil, nil, fmt.Errorf("sampling answered %T", res.Content)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " sampled " + text.Text}}}, nil, nil
	})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	engine := gosdk.NewEngine(server, &gosdk.Options{Logger: quiet})
	h := httptransport.New(engine, &httptransport.Options{Sessions: shared, Events: store, Logger: quiet})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"result"`)) && !bytes.Contains(body, []byte(`"method"`)) {
				inst.answers.Add(1)
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { // before the Store's and the client's
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("%s: Shutdown: %v", name, err)
		}
		srv.Close()
		engine.Close()
	})
	inst.url = srv.URL + "/mcp"
	return inst
}

// roundRobinProxy serves the instances behind one URL, sending each
// request to the next one, as a load balancer without sticky sessions.
func roundRobinProxy(t *testing.T, insts []*instance) string {
	t.Helper()
	var targets []*url.URL
	for _, in := range insts {
		u, err := url.Parse(strings.TrimSuffix(in.url, "/mcp"))
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, u)
	}
	srv := httptest.NewServer(roundrobin.New(targets, nil))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// twoInstances starts two instances behind a round-robin proxy and
// connects a 2025-11-25 client to it that answers sampling requests.
func twoInstances(t *testing.T, relay bool) ([]*instance, *mcp.ClientSession) {
	t.Helper()
	return connectRoamer(t, []*instance{startInstance(t, "one", relay), startInstance(t, "two", relay)})
}

// connectRoamer puts insts behind a round-robin proxy and connects the
// client twoInstances describes.
func connectRoamer(t *testing.T, insts []*instance) ([]*instance, *mcp.ClientSession) {
	t.Helper()
	endpoint := roundRobinProxy(t, insts)
	client := mcp.NewClient(&mcp.Implementation{Name: "roamer", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			in, _ := req.Params.Messages[0].Content.(*mcp.TextContent)
			if in == nil {
				return nil, errors.New("no text")
			}
			return &mcp.CreateMessageResult{Role: "assistant", Model: "test", Content: &mcp.TextContent{Text: strings.ToUpper(in.Text)}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// No standalone GET stream: it would take a turn of the proxy at a
	// time of the SDK's choosing.
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return insts, cs
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("result: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content: %T", res.Content[0])
	}
	return tc.Text
}

// TestTwoInstances is what the package is for: two instances, each with
// its own Redis client and Store, serve one 2025-11-25 session through a
// round-robin proxy. Calls alternate between them and see the session's
// state (the client's name, from initialize on the other instance); a
// tool's sampling request is answered by the client in a POST that lands
// on the other instance and reaches the tool through the relay; after the
// client's DELETE, both instances answer 404 for the session.
func TestTwoInstances(t *testing.T) {
	insts, cs := twoInstances(t, true)
	checkTwoInstances(t, insts, cs)
}

// checkTwoInstances checks what TestTwoInstances says of insts, two
// instances with the relay, serving cs's session through a round-robin
// proxy.
func checkTwoInstances(t *testing.T, insts []*instance, cs *mcp.ClientSession) {
	t.Helper()
	ctx := ctx5(t)
	served := map[string]int{}
	for i := range 6 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "where", Arguments: map[string]any{"text": fmt.Sprint(i)}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		name, rest, _ := strings.Cut(textOf(t, res), " ")
		if rest != fmt.Sprint("roamer ", i) {
			t.Errorf("call %d: %q", i, textOf(t, res))
		}
		served[name]++
	}
	if served["one"] != 3 || served["two"] != 3 {
		t.Errorf("calls served: %v, want 3 each", served)
	}

	for i := range 2 {
		before := [2]int32{insts[0].answers.Load(), insts[1].answers.Load()}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"text": "hello"}})
		if err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
		name, rest, _ := strings.Cut(textOf(t, res), " ")
		if rest != "sampled HELLO" {
			t.Errorf("sample %d: %q", i, textOf(t, res))
		}
		// The answer went to the instance that did not run the tool.
		other := 0
		if name == "one" {
			other = 1
		}
		if got := insts[other].answers.Load() - before[other]; got != 1 {
			t.Errorf("sample %d ran on %s; the other instance got %d answers, want 1", i, name, got)
		}
	}

	id := cs.ID()
	if err := cs.Close(); err != nil {
		t.Fatalf("Close (DELETE): %v", err)
	}
	for _, in := range insts {
		if code := postStatus(t, in.url, id); code != http.StatusNotFound {
			t.Errorf("%s: a request of the deleted session got %d, want 404", in.name, code)
		}
	}
}

// TestTwoInstancesNoRelay shows what the relay does: with the same
// instances given a Store without its SessionRelay, the client's answer to
// the sampling request lands on the other instance and never reaches the
// tool.
func TestTwoInstancesNoRelay(t *testing.T) {
	insts, cs := twoInstances(t, false)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sample", Arguments: map[string]any{"text": "hello"}})
	if err == nil {
		t.Fatalf("the sampling call completed without the relay: %q", textOf(t, res))
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CallTool: %v, want the test's deadline", err)
	}
	if insts[0].answers.Load()+insts[1].answers.Load() != 1 {
		t.Errorf("answers POSTed: %d, %d", insts[0].answers.Load(), insts[1].answers.Load())
	}
}

// postStatus returns the status of a tools/list POST of session id sent to
// endpoint directly.
func postStatus(t *testing.T, endpoint, id string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	req.Header.Set("Mcp-Protocol-Version", httptransport.Version20251125)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestResumeOnOtherInstance: a client whose session GET stream on one
// instance dropped resumes it with Last-Event-ID on the other instance,
// and gets the event it missed meanwhile (a tools/list_changed of the
// first instance's server) from Redis.
func TestResumeOnOtherInstance(t *testing.T) {
	a, b := startInstance(t, "a", true), startInstance(t, "b", true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sid := initializeRaw(t, ctx, a.url)
	addTool := func(name string) {
		a.server.AddTool(&mcp.Tool{Name: name, InputSchema: &jsonschema.Schema{Type: "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}

	get := rawRequest(t, ctx, "GET", a.url, sid, "")
	addTool("first")
	seen := nextMessage(t, sse.NewReader(get.Body))
	get.Body.Close() // the stream drops after the client saw one event
	stream, index, ok := strings.Cut(seen.ID, "_")
	n, err := strconv.Atoi(index)
	if !ok || err != nil || !strings.Contains(string(seen.Data), `"notifications/tools/list_changed"`) {
		t.Fatalf("A's GET stream: event %q %s, want a tools/list_changed with an id", seen.ID, seen.Data)
	}

	// The next list change goes to the session's stored events, in Redis.
	addTool("second")
	for {
		if evs, err := a.store.After(ctx, sid, stream, n); err == nil && len(evs) > 0 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("A stored no event for the second list change")
		case <-time.After(10 * time.Millisecond):
		}
	}

	resumed := rawRequest(t, ctx, "GET", b.url, sid, seen.ID)
	defer resumed.Body.Close()
	if resumed.StatusCode != http.StatusOK {
		t.Fatalf("GET with Last-Event-ID %s on B: %d", seen.ID, resumed.StatusCode)
	}
	e := nextMessage(t, sse.NewReader(resumed.Body))
	if want := stream + "_" + strconv.Itoa(n+1); e.ID != want || !strings.Contains(string(e.Data), `"notifications/tools/list_changed"`) {
		t.Fatalf("B's resumed stream: event %q %s, want A's second tools/list_changed as %s", e.ID, e.Data, want)
	}
}

// nextMessage returns the next event of r that carries data.
func nextMessage(t *testing.T, r *sse.Reader) sse.Event {
	t.Helper()
	for {
		e, err := r.Next()
		if err != nil {
			t.Fatalf("stream ended: %v", err)
		}
		if !e.IsComment && len(e.Data) > 0 {
			return e
		}
	}
}

// initializeRaw opens a 2025-11-25 session at endpoint, in raw HTTP, and
// returns its id.
func initializeRaw(t *testing.T, ctx context.Context, endpoint string) string {
	t.Helper()
	resp := rawRequest(t, ctx, "POST", endpoint, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	done := rawRequest(t, ctx, "POST", endpoint, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	done.Body.Close()
	if done.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", done.StatusCode)
	}
	return sid
}

// rawRequest sends a 2025-11-25 request: a POST of body, or a GET of the
// session's stream (resuming after lastEventID when it is set).
func rawRequest(t *testing.T, ctx context.Context, method, endpoint, sid, body string) *http.Response {
	t.Helper()
	var payload io.Reader
	if method == "POST" {
		payload = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, endpoint, payload)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	} else {
		req.Header.Set("Accept", "text/event-stream")
		if body != "" {
			req.Header.Set("Last-Event-ID", body)
		}
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
