package mcpgo_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// rawPost sends one JSON-RPC message and returns the response.
func rawPost(ctx context.Context, t *testing.T, url string, header map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	return resp
}

// tryPost sends a request the test aborts on purpose and waits for its
// response body to end.
func tryPost(ctx context.Context, url string, header map[string]string, body string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// rawSession initializes a 2025-11-25 session over raw HTTP and returns
// the headers its requests carry.
func rawSession(t *testing.T, url string) map[string]string {
	t.Helper()
	resp := rawPost(context.Background(), t, url, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize: %s", resp.Status)
	}
	h := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	resp = rawPost(context.Background(), t, url, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return h
}

// modernHeader is what a 2026-07-28 tools/call of tool carries.
func modernHeader(tool string) map[string]string {
	return map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": tool}
}

// modernMeta is the _meta of a 2026-07-28 request, without its braces.
const modernMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// progressStream reads a call's response stream and checks that it holds
// exactly want progress notifications for token, numbered 1 to want in
// order, then the answer with id.
func progressStream(body io.Reader, token string, want int, id jsonrpc.ID) error {
	r := sse.NewReader(bufio.NewReader(body))
	got, answered := 0, false
	for {
		e, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", token, err)
		}
		if e.IsComment || len(e.Data) == 0 {
			continue
		}
		m, err := jsonrpc.Decode(e.Data)
		if err != nil {
			return err
		}
		if m.IsResponse() {
			if m.ID != id || m.Error != nil {
				return fmt.Errorf("%s: answer %s %v, want id %s", token, m.ID, m.Error, id)
			}
			answered = true
			continue
		}
		if answered {
			return fmt.Errorf("%s: %s after the answer", token, m.Method)
		}
		var p struct {
			Token    string  `json:"progressToken"`
			Progress float64 `json:"progress"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return err
		}
		if p.Token != token {
			return fmt.Errorf("%s: received %q's notification", token, p.Token)
		}
		got++
		if int(p.Progress) != got {
			return fmt.Errorf("%s: progress %v out of order (want %d)", token, p.Progress, got)
		}
	}
	if !answered {
		return fmt.Errorf("%s: no answer", token)
	}
	if got != want {
		return fmt.Errorf("%s: %d progress notifications, want %d", token, got, want)
	}
	return nil
}
