package redisstore_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpmount/mcpmount/examples/roundrobin"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/sse"
)

// TestKilledInstance: two instances, processes of their own
// (internal/instance), share the test's Redis behind a round-robin proxy
// (examples/roundrobin). A go-sdk client's call runs on one of them, which
// also holds the session's GET stream and a 2024-11-05 client's event
// stream; that instance is killed (SIGKILL). Within twice the liveness
// period, the client's call, which it resumes on the other instance, gets
// a -32000 error there, and the session goes on; a message the other
// instance sends the session after that reaches the GET stream the client
// resumes there, instead of going to the killed instance; and a POST for
// the 2024-11-05 session gets 404, not a 202 for a message no one serves.
func TestKilledInstance(t *testing.T) {
	const period = 3 * time.Second
	procs, endpoint := startProcessPair(t, period)
	ctx := ctxFor(t, time.Minute)
	cs, progress := connectProgressWatcher(t, ctx, endpoint)
	sid := cs.ID()
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Meta: mcp.Meta{"progressToken": "w"}})
		called <- err
	}()
	var victim, survivor *process
	select {
	case name := <-progress:
		victim, survivor = procs[name], procs[map[string]string{"one": "two", "two": "one"}[name]]
	case <-ctx.Done():
		t.Fatal("the call sent no progress notification")
	}
	getID := holdGetStream(t, ctx, victim, survivor, sid)
	legacy := openLegacyOn(t, ctx, victim.url)
	if code := postLegacy(t, ctx, survivor.base.String()+legacy); code != http.StatusAccepted {
		t.Fatalf("a 2024-11-05 POST on %s while %s lives: %d, want 202", survivor.name, victim.name, code)
	}

	killed := time.Now()
	victim.kill()
	checkStoppedCall(t, ctx, called, killed, period)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "where"})
	if err != nil || textOf(t, res) != survivor.name {
		t.Fatalf("the session after its call was answered: %v %v", res, err)
	}

	// The survivor's own message now waits there for the client's GET.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "addtool"}); err != nil || !strings.HasPrefix(textOf(t, res), survivor.name+" ") {
		t.Fatalf("addtool: %v %v", res, err)
	}
	gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	resumed := rawRequest(t, gctx, "GET", endpoint, sid, getID)
	defer resumed.Body.Close()
	if resumed.StatusCode != http.StatusOK {
		t.Fatalf("resuming the GET stream: %d", resumed.StatusCode)
	}
	if e := nextMessage(t, sse.NewReader(resumed.Body)); !strings.Contains(string(e.Data), "notifications/tools/list_changed") {
		t.Errorf("the resumed GET stream: %s, want the survivor's tools/list_changed", e.Data)
	}

	if code := postLegacy(t, ctx, strings.TrimSuffix(endpoint, "/mcp")+legacy); code != http.StatusNotFound {
		t.Errorf("a POST for the 2024-11-05 session of the killed instance: %d, want 404", code)
	}
}

// startProcessPair starts the instances "one" and "two" as processes, with
// the given liveness period, behind a round-robin proxy, and returns them
// by name and the proxy's /mcp endpoint.
func startProcessPair(t *testing.T, period time.Duration) (map[string]*process, string) {
	t.Helper()
	bin := buildInstance(t)
	procs := map[string]*process{}
	var targets []*url.URL
	for _, name := range []string{"one", "two"} {
		p := startInstanceProcess(t, bin, name, period)
		procs[name] = p
		targets = append(targets, p.base)
	}
	proxy := httptest.NewServer(roundrobin.New(targets, nil))
	t.Cleanup(proxy.Close)
	return procs, proxy.URL + "/mcp"
}

// connectProgressWatcher connects a go-sdk client, 2025-11-25, to
// endpoint; the messages of the progress notifications it gets arrive on
// the channel returned.
func connectProgressWatcher(t *testing.T, ctx context.Context, endpoint string) (*mcp.ClientSession, <-chan string) {
	t.Helper()
	progress := make(chan string, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "watcher", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params.Message:
			default:
			}
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: httptransport.Version20251125})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, progress
}

// checkStoppedCall checks that the call whose outcome arrives on called
// failed with the error of a stopped instance, within twice the liveness
// period of the kill.
func checkStoppedCall(t *testing.T, ctx context.Context, called <-chan error, killed time.Time, period time.Duration) {
	t.Helper()
	var err error
	select {
	case err = <-called:
	case <-ctx.Done():
		t.Fatal("the call on the killed instance was never answered")
	}
	waited := time.Since(killed)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != -32000 || !strings.Contains(rpcErr.Message, "the instance serving this call stopped") {
		t.Fatalf("the call on the killed instance: %v; want a -32000 error saying its instance stopped", err)
	}
	if waited > 2*period {
		t.Errorf("the call was answered %v after its instance was killed, past twice the liveness period (%v)", waited, 2*period)
	}
	t.Logf("answered %v after the kill", waited)
}

// holdGetStream opens session sid's GET stream on victim, has survivor's
// server send the session a message (it adds a tool), which survivor
// forwards there, and returns the message's event id.
func holdGetStream(t *testing.T, ctx context.Context, victim, survivor *process, sid string) string {
	t.Helper()
	postCall(t, ctx, survivor.url, sid, "where") // survivor serves the session
	get := rawRequest(t, ctx, "GET", victim.url, sid, "")
	t.Cleanup(func() { get.Body.Close() })
	if get.StatusCode != http.StatusOK {
		t.Fatalf("GET stream on %s: %d", victim.name, get.StatusCode)
	}
	postCall(t, ctx, survivor.url, sid, "addtool")
	e := nextMessage(t, sse.NewReader(get.Body))
	if !strings.Contains(string(e.Data), "notifications/tools/list_changed") || e.ID == "" {
		t.Fatalf("GET stream on %s: %q %s, want %s's tools/list_changed", victim.name, e.ID, e.Data, survivor.name)
	}
	return e.ID
}

// postCall calls tool name in session sid at endpoint, in raw HTTP.
func postCall(t *testing.T, ctx context.Context, endpoint, sid, name string) {
	t.Helper()
	resp := rawRequest(t, ctx, "POST", endpoint, sid, `{"jsonrpc":"2.0","id":"raw","method":"tools/call","params":{"name":"`+name+`"}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"result"`) {
		t.Fatalf("%s at %s: %d %s", name, endpoint, resp.StatusCode, body)
	}
}

// openLegacyOn opens a 2024-11-05 session at endpoint and returns the
// path its POSTs go to.
func openLegacyOn(t *testing.T, ctx context.Context, endpoint string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	r := sse.NewReader(resp.Body)
	e, err := r.Next()
	for err == nil && e.IsComment {
		e, err = r.Next()
	}
	if err != nil || e.Name != "endpoint" {
		t.Fatalf("2024-11-05 GET: %d, first event %+v %v", resp.StatusCode, e, err)
	}
	return string(e.Data)
}

// postLegacy POSTs a tools/list to a 2024-11-05 session's URL and returns
// the status.
func postLegacy(t *testing.T, ctx context.Context, target string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", target, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
