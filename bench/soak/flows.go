package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/mcpmount/mcpmount/sse"
)

// What each kind of client does once; each returns nil when all went as
// the transport's rules say.

// echo2026 makes a 2026-07-28 tools/call of echo and checks its answer.
func (c *client) echo2026(ctx context.Context) error {
	_, m, err := c.call(ctx, modernHeader("tools/call", "echo"), toolCall(1, "echo", `{"text":"soak"}`, modernMeta))
	if err == nil && !strings.Contains(string(m.Result), `"soak"`) {
		err = fmt.Errorf("echo answered %s", m.Result)
	}
	return err
}

// abort2026 makes a 2026-07-28 tools/call of slow, which answers only when
// cancelled, and drops the request after wait: the server cancels the
// call.
func (c *client) abort2026(ctx context.Context, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	_, m, err := c.call(ctx, modernHeader("tools/call", "slow"), toolCall(1, "slow", `{}`, modernMeta))
	switch {
	case ctx.Err() != nil:
		return nil // dropped, as meant
	case err != nil:
		return err
	default:
		return fmt.Errorf("slow answered before the client left: %s", m.Result)
	}
}

// initialize opens a 2025-11-25 session and returns its id.
func (c *client) initialize(ctx context.Context) (string, error) {
	resp, _, err := c.call(ctx, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`)
	if err != nil {
		return "", err
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return "", errors.New("initialize: no Mcp-Session-Id")
	}
	return sid, c.notify(ctx, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// notify POSTs a notification of session sid, which gets 202.
func (c *client) notify(ctx context.Context, sid, body string) error {
	return c.postAccepted(ctx, "", sessionHeader(sid), body)
}

// postAccepted POSTs a message to url (the endpoint when empty) that gets
// 202: a notification, or any message of a 2024-11-05 session.
func (c *client) postAccepted(ctx context.Context, to string, header map[string]string, body string) error {
	resp, err := c.request(ctx, "POST", to, header, body)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("POST %.40s: %s", body, resp.Status)
	}
	return nil
}

// session2025 opens a session, calls echo, holds its GET stream for hold
// (reading the list changes), and DELETEs it.
func (c *client) session2025(ctx context.Context, hold time.Duration) error {
	sid, err := c.initialize(ctx)
	if err != nil {
		return err
	}
	if _, _, err := c.call(ctx, sessionHeader(sid), toolCall(1, "echo", `{"text":"soak"}`, "")); err != nil {
		return err
	}
	h := sessionHeader(sid)
	h["Accept"] = "text/event-stream"
	if err := c.hold(ctx, "GET", h, "", hold, nil); err != nil || ctx.Err() != nil {
		return err
	}
	del, err := c.request(ctx, "DELETE", "", sessionHeader(sid), "")
	if err != nil {
		return err
	}
	del.Body.Close()
	if del.StatusCode != http.StatusOK {
		return fmt.Errorf("DELETE: %s", del.Status)
	}
	return nil
}

// listen2026 opens a subscriptions/listen for tool-list changes, reads
// its acknowledgement, and holds it for hold.
func (c *client) listen2026(ctx context.Context, hold time.Duration) error {
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{` + modernMeta + `}}}`
	return c.hold(ctx, "POST", modernHeader("subscriptions/listen", ""), body, hold, func(r *sse.Reader) error {
		m, err := nextMessage(r)
		if err != nil {
			return fmt.Errorf("listen: no acknowledgement: %w", err)
		}
		if m.Method != "notifications/subscriptions/acknowledged" {
			return fmt.Errorf("listen: %s before the acknowledgement", m.Method)
		}
		return nil
	})
}

// answerWithin bounds the wait for a held stream's answer (and its first
// message), which a server under load gives at once.
const answerWithin = 10 * time.Second

// hold opens a stream (a GET, or a POST of body), reads its first message
// with first (if set), then reads what comes for hold and closes it.
func (c *client) hold(ctx context.Context, method string, header map[string]string, body string, hold time.Duration, first func(*sse.Reader) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	late := time.AfterFunc(answerWithin, cancel)
	var r *sse.Reader
	resp, err := c.request(ctx, method, "", header, body)
	if err == nil {
		defer resp.Body.Close()
		r = sse.NewReader(bufio.NewReader(resp.Body))
		if resp.StatusCode != http.StatusOK {
			err = fmt.Errorf("%s stream: %s", method, resp.Status)
		} else if first != nil {
			err = first(r)
		}
	}
	if !late.Stop() {
		return fmt.Errorf("%s stream: no answer within %v", method, answerWithin)
	}
	if err != nil {
		return err
	}
	stop := time.AfterFunc(hold, cancel)
	defer stop.Stop()
	return drain(ctx, r)
}

// legacy2024 opens a 2024-11-05 session on its event stream, initializes
// it, calls progress (three progress notifications, then the answer, all
// on the stream), and closes the stream, which ends the session.
func (c *client) legacy2024(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	resp, err := c.request(ctx, "GET", "", map[string]string{"Accept": "text/event-stream"}, "")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("2024-11-05 GET: %s", resp.Status)
	}
	r := sse.NewReader(bufio.NewReader(resp.Body))
	endpoint, err := legacyEndpoint(r, c.url)
	if err != nil {
		return err
	}
	steps := []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`, "protocolVersion"},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, ""},
		{toolCall(2, "progress", `{"count":3}`, `"progressToken":"p"`), "notifications/progress*3"},
	}
	for _, s := range steps {
		if err := c.postAccepted(ctx, endpoint, nil, s.body); err != nil {
			return err
		}
		if err := expectLegacy(r, s.want); err != nil {
			return err
		}
	}
	return nil
}

// legacyEndpoint reads the endpoint event of a 2024-11-05 stream.
func legacyEndpoint(r *sse.Reader, base string) (string, error) {
	for {
		e, err := r.Next()
		if err != nil {
			return "", fmt.Errorf("2024-11-05: no endpoint event: %w", err)
		}
		if e.Name == "endpoint" {
			return resolve(base, string(e.Data))
		}
	}
}

// expectLegacy reads a 2024-11-05 stream up to the answer want names: a
// result holding want, or "notifications/progress*N", N progress
// notifications and then the answer. Nothing is awaited for "".
func expectLegacy(r *sse.Reader, want string) error {
	if want == "" {
		return nil
	}
	progress := 0
	for {
		m, err := nextMessage(r)
		if err != nil {
			return fmt.Errorf("2024-11-05 stream: %w", err)
		}
		switch {
		case m.Method == "notifications/progress":
			progress++
		case m.IsResponse() && m.Error != nil:
			return fmt.Errorf("2024-11-05: error %d %s", m.Error.Code, m.Error.Message)
		case m.IsResponse() && want == "notifications/progress*3":
			if progress != 3 {
				return fmt.Errorf("2024-11-05: %d progress notifications before the answer, want 3", progress)
			}
			return nil
		case m.IsResponse():
			if !strings.Contains(string(m.Result), want) {
				return fmt.Errorf("2024-11-05: answer %s lacks %s", m.Result, want)
			}
			return nil
		}
	}
}
