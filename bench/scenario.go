package bench

import (
	"bytes"
	"fmt"
)

// Scenario is one request pattern, the same bytes for every variant.
type Scenario struct {
	Name      string
	Mode      Mode
	Clients   int  // concurrent clients, each on its own connection
	Needs2026 bool // the requests are 2026-07-28 ones
	// Prepare readies a connected client (a 2025 session needs its
	// initialize) and returns the request to repeat.
	Prepare func(c *RawClient, addr string) ([]byte, error)
	// Check validates a response and returns how many progress
	// notifications it lacked.
	Check func(Response) (lost int, err error)
}

var (
	echoWant     = []byte(`"text":"` + EchoText + `"`)
	doneWant     = []byte(`"text":"` + ProgressDone + `"`)
	progressWant = []byte(`notifications/progress`)
	tokenWant    = []byte(`"progressToken":"p1"`)
	idWant       = []byte(`"id":1,`)
	idWantLast   = []byte(`"id":1}`)
	resultWant   = []byte(`"result":{`)
	errorMark    = []byte(`"error":{`)
	isErrorMark  = []byte(`"isError":true`)
)

// checkAnswer checks, without allocating (the checks run in the
// benchmark's loop), that body holds a successful answer to request 1
// whose result carries want: the answer's id, a result and no JSON-RPC
// error, and no tool error.
func checkAnswer(body, want []byte) error {
	switch {
	case !bytes.Contains(body, want):
		return fmt.Errorf("no %s in %.300s", want, body)
	case !bytes.Contains(body, idWant) && !bytes.Contains(body, idWantLast):
		return fmt.Errorf("no answer to request 1: %.300s", body)
	case !bytes.Contains(body, resultWant) || bytes.Contains(body, errorMark):
		return fmt.Errorf("not a result: %.300s", body)
	case bytes.Contains(body, isErrorMark):
		return fmt.Errorf("a tool error: %.300s", body)
	}
	return nil
}

func checkEcho(r Response) (int, error) {
	if r.Status != 200 || len(r.Body) == 0 || r.Body[0] != '{' {
		return 0, fmt.Errorf("not a JSON answer: status %d, body %.300s", r.Status, r.Body)
	}
	return 0, checkAnswer(r.Body, echoWant)
}

func checkProgress(r Response) (int, error) {
	if r.Status != 200 {
		return 0, fmt.Errorf("status %d, body %.600s", r.Status, r.Body)
	}
	if err := checkAnswer(r.Body, doneWant); err != nil {
		return 0, err
	}
	n := bytes.Count(r.Body, progressWant)
	if n > ProgressN {
		return 0, fmt.Errorf("%d progress notifications, want %d", n, ProgressN)
	}
	if n > 0 && bytes.Count(r.Body, tokenWant) < n {
		return 0, fmt.Errorf("progress notifications without the request's token: %.600s", r.Body)
	}
	return ProgressN - n, nil
}

func fixed(req func(addr string) []byte) func(*RawClient, string) ([]byte, error) {
	return func(_ *RawClient, addr string) ([]byte, error) { return req(addr), nil }
}

func echo2026(addr string) []byte {
	return BuildRequest("POST", addr, "/mcp", Headers2026("tools/call", "echo"), BodyEcho2026)
}

// Scenarios returns the request scenarios, in table order.
func Scenarios() []Scenario {
	return []Scenario{
		{Name: "json2026", Mode: ModeJSON, Clients: 1, Needs2026: true, Prepare: fixed(echo2026), Check: checkEcho},
		{Name: "sse2026-progress", Mode: ModeSSE, Clients: 1, Needs2026: true, Check: checkProgress,
			Prepare: fixed(func(addr string) []byte {
				return BuildRequest("POST", addr, "/mcp", Headers2026("tools/call", "progress"), BodyProgress2026)
			})},
		{Name: "session2025", Mode: ModeJSON, Clients: 1, Prepare: prepareSession, Check: checkEcho},
		{Name: "json2026-64clients", Mode: ModeJSON, Clients: 64, Needs2026: true, Prepare: fixed(echo2026), Check: checkEcho},
	}
}

// Initialize runs a 2025-11-25 initialize and notifications/initialized on
// c and returns the session id (empty for servers without sessions).
func Initialize(c *RawClient, addr string) (string, error) {
	resp, err := c.Do(BuildRequest("POST", addr, "/mcp", []header{{"Accept", acceptBoth}}, BodyInit2025))
	if err != nil {
		return "", err
	}
	if resp.Status != 200 || !bytes.Contains(resp.Body, []byte(`"protocolVersion"`)) {
		return "", fmt.Errorf("initialize: status %d, body %.300s", resp.Status, resp.Body)
	}
	sid := string(resp.SessionID)
	resp, err = c.Do(BuildRequest("POST", addr, "/mcp", Headers2025(sid), BodyInitialized))
	if err != nil {
		return "", err
	}
	if resp.Status != 202 && resp.Status != 200 {
		return "", fmt.Errorf("initialized: status %d, body %.300s", resp.Status, resp.Body)
	}
	return sid, nil
}

func prepareSession(c *RawClient, addr string) ([]byte, error) {
	sid, err := Initialize(c, addr)
	if err != nil {
		return nil, err
	}
	return BuildRequest("POST", addr, "/mcp", Headers2025(sid), BodyEcho2025), nil
}
