package soak

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/sse"
)

// modernMeta is the _meta of a 2026-07-28 request, without its braces.
const modernMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}`

// client speaks to one MCP endpoint in raw HTTP, as clients of each era
// do.
type client struct {
	url  string
	http *http.Client
}

// request sends method to url (the endpoint when empty) with headers
// and body (none when empty).
func (c *client) request(ctx context.Context, method, to string, header map[string]string, body string) (*http.Response, error) {
	if to == "" {
		to = c.url
	}
	var payload io.Reader
	if body != "" {
		payload = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, to, payload)
	if err != nil {
		return nil, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, headerOr(header, "Mcp-Method", "request"), err)
	}
	return resp, nil
}

func headerOr(h map[string]string, k, def string) string {
	if v := h[k]; v != "" {
		return v
	}
	return def
}

// call sends a request and returns its answer (JSON, or the last message
// of an SSE stream that has an id), checking the status.
func (c *client) call(ctx context.Context, header map[string]string, body string) (*http.Response, *jsonrpc.Message, error) {
	resp, err := c.request(ctx, "POST", "", header, body)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return resp, nil, fmt.Errorf("POST %s: %s %s", headerOr(header, "Mcp-Method", "request"), resp.Status, b)
	}
	m, err := answerOf(resp)
	if err == nil && m.Error != nil {
		err = fmt.Errorf("POST %s: error %d %s", headerOr(header, "Mcp-Method", "request"), m.Error.Code, m.Error.Message)
	}
	return resp, m, err
}

// answerOf reads the response to a request from a POST's body.
func answerOf(resp *http.Response) (*jsonrpc.Message, error) {
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if ct != "text/event-stream" {
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		return jsonrpc.Decode(b)
	}
	r := sse.NewReader(bufio.NewReader(resp.Body))
	for {
		m, err := nextMessage(r)
		if err != nil {
			return nil, fmt.Errorf("reading the answer: %w", err)
		}
		if m.IsResponse() {
			return m, nil
		}
	}
}

// nextMessage returns the next JSON-RPC message of an SSE stream.
func nextMessage(r *sse.Reader) (*jsonrpc.Message, error) {
	for {
		e, err := r.Next()
		if err != nil {
			return nil, err
		}
		if e.IsComment || len(e.Data) == 0 || e.Name == "endpoint" {
			continue
		}
		return jsonrpc.Decode(e.Data)
	}
}

// drain reads r's events until it ends (the hold is over, the stream
// cut), and reports an error other than that end.
func drain(ctx context.Context, r *sse.Reader) error {
	for {
		if _, err := r.Next(); err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading a held stream: %w", err)
		}
	}
}

// modernHeader is what a 2026-07-28 request of method (naming name, if
// set) carries.
func modernHeader(method, name string) map[string]string {
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// sessionHeader is what a request of a 2025-11-25 session carries.
func sessionHeader(sid string) map[string]string {
	return map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": "2025-11-25"}
}

// toolCall is the body of a tools/call with arguments (a JSON object) and
// _meta fields (without braces; none when empty).
func toolCall(id int64, name, arguments, meta string) string {
	b, _ := json.Marshal(name)
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%s,"arguments":%s,"_meta":{%s}}}`, id, b, arguments, meta)
}

// resolve returns ref (the endpoint event's URI) against base.
func resolve(base, ref string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	r, err := url.Parse(ref)
	if err != nil {
		return "", fmt.Errorf("endpoint %q: %w", ref, err)
	}
	return b.ResolveReference(r).String(), nil
}
