package gosdk_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// rawPost sends one JSON-RPC message and returns the response.
func rawPost(ctx context.Context, t *testing.T, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	return rawPostVia(ctx, t, http.DefaultClient, url, header, body)
}

// rawPostVia is rawPost through hc.
func rawPostVia(ctx context.Context, t *testing.T, hc *http.Client, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	return resp
}

// tryPost sends a request whose outcome the test does not need (it is
// aborted on purpose), and waits for its response body to end.
func tryPost(ctx context.Context, url string, header map[string]string, body string) {
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// rawSession initializes a 2025-11-25 session over raw HTTP.
func rawSession(t *testing.T, url string) map[string]string {
	t.Helper()
	return rawSessionVia(t, http.DefaultClient, url)
}

// rawSessionVia is rawSession through hc.
func rawSessionVia(t *testing.T, hc *http.Client, url string) map[string]string {
	t.Helper()
	resp := rawPostVia(context.Background(), t, hc, url, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	resp = rawPostVia(context.Background(), t, hc, url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return h
}

// TestNoCrossTalk: 8 concurrent calls on one 2025 session each emit 50
// progress notifications; every call's stream carries exactly its own 50,
// in order, and then its own response.
func TestNoCrossTalk(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	h := rawSession(t, f.url)
	const calls, each = 8, 50
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	for c := 0; c < calls; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"progress","arguments":{"count":%d},"_meta":{"progressToken":"tok-%d"}}}`, 100+c, each, c)
			resp := rawPost(context.Background(), t, f.url, h, body)
			defer resp.Body.Close()
			r := sse.NewReader(bufio.NewReader(resp.Body))
			progress := 0
			for {
				e, err := r.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					errs <- fmt.Errorf("call %d: %v", c, err)
					return
				}
				if e.IsComment || len(e.Data) == 0 {
					continue
				}
				m, err := jsonrpc.Decode(e.Data)
				if err != nil {
					errs <- err
					return
				}
				if m.IsResponse() {
					if m.ID != jsonrpc.Int64ID(int64(100+c)) {
						errs <- fmt.Errorf("call %d got response %s", c, m.ID)
					}
					continue
				}
				var p struct {
					Token    string  `json:"progressToken"`
					Progress float64 `json:"progress"`
				}
				_ = json.Unmarshal(m.Params, &p)
				if p.Token != fmt.Sprintf("tok-%d", c) {
					errs <- fmt.Errorf("call %d received %s's notification", c, p.Token)
					return
				}
				progress++
				if int(p.Progress) != progress {
					errs <- fmt.Errorf("call %d: progress %v out of order", c, p.Progress)
				}
			}
			if progress != each {
				errs <- fmt.Errorf("call %d got %d progress notifications, want %d", c, progress, each)
			}
		}(c)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestAbortModernCancels: with the SDK engine, a client dropping a
// 2026-07-28 call cancels the tool's context.
func TestAbortModernCancels(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "slow"}
	go tryPost(ctx, f.url, h, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"text":"m"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	<-f.started
	cancel()
	select {
	case name := <-f.cancelled:
		if name != "m" {
			t.Fatalf("cancelled %q", name)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("tool context not cancelled after the client aborted")
	}
}

// TestAbort2025DoesNotCancel: dropping a 2025-era call's connection leaves
// the tool running; notifications/cancelled stops it.
func TestAbort2025DoesNotCancel(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	h := rawSession(t, f.url)
	ctx, cancel := context.WithCancel(context.Background())
	go tryPost(ctx, f.url, h, `{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"slow","arguments":{"text":"l"}}}`)
	<-f.started
	cancel()
	select {
	case <-f.cancelled:
		t.Fatal("dropping the connection cancelled a 2025-era call")
	case <-time.After(200 * time.Millisecond):
	}
	resp := rawPost(context.Background(), t, f.url, h, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1"}}`)
	resp.Body.Close()
	if resp.StatusCode != 202 {
		t.Fatalf("cancelled: %d", resp.StatusCode)
	}
	select {
	case <-f.cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/cancelled did not reach the tool")
	}
}
