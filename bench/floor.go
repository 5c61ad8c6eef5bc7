package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"sync"
)

// ToolParams is what a tools/call's params decode into, for the floor and
// the minimal engine alike.
type ToolParams struct {
	Name      string `json:"name"`
	Arguments struct {
		Text  string `json:"text"`
		Count int    `json:"count"`
	} `json:"arguments"`
	Meta struct {
		ProgressToken json.RawMessage `json:"progressToken"`
	} `json:"_meta"`
}

// TextContent and ToolResult are the result of both tools.
type TextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type ToolResult struct {
	Content []TextContent `json:"content"`
}

// ProgressParams are the params of notifications/progress.
type ProgressParams struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Progress      int             `json:"progress"`
	Total         int             `json:"total"`
}

// EchoResult and ProgressResult build the tools' results.
func EchoResult(text string) *ToolResult {
	return &ToolResult{Content: []TextContent{{Type: "text", Text: text}}}
}

// Floor is the baseline: a plain net/http handler that decodes the same
// JSON-RPC body and writes the same result, with no MCP validation, no
// sessions and no engine seam. Progress and listen streams are plain SSE.
type Floor struct {
	mu      sync.Mutex
	streams map[*floorStream]struct{}
	closed  chan struct{}
	once    sync.Once
}

type floorStream struct {
	mu sync.Mutex
	w  http.ResponseWriter
	rc *http.ResponseController
	id json.RawMessage
}

// NewFloor returns the floor handler.
func NewFloor() *Floor {
	return &Floor{streams: make(map[*floorStream]struct{}), closed: make(chan struct{})}
}

type floorRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  ToolParams      `json:"params"`
}

type floorResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *ToolResult     `json:"result"`
}

type floorNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

func (f *Floor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req floorRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch req.Method {
	case "initialize":
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "floor-session")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"protocolVersion":"` + Version2025 + `","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"floor","version":"1"}}}`))
	case "notifications/initialized":
		w.WriteHeader(http.StatusAccepted)
	case "subscriptions/listen":
		f.listen(w, r, req.ID)
	case "tools/call":
		switch req.Params.Name {
		case "echo":
			writeFloorJSON(w, &floorResponse{JSONRPC: "2.0", ID: req.ID, Result: EchoResult(req.Params.Arguments.Text)})
		case "progress":
			f.progress(w, &req)
		default:
			http.Error(w, "unknown tool", http.StatusBadRequest)
		}
	default:
		http.Error(w, "unknown method", http.StatusBadRequest)
	}
}

func writeFloorJSON(w http.ResponseWriter, v any) {
	out, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(out)
}

func setSSE(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
}

func writeEvent(w http.ResponseWriter, rc *http.ResponseController, v any) error {
	out, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, len(out)+8)
	buf = append(buf, "data: "...)
	buf = append(buf, out...)
	buf = append(buf, "\n\n"...)
	if _, err := w.Write(buf); err != nil {
		return err
	}
	return rc.Flush()
}

func (f *Floor) progress(w http.ResponseWriter, req *floorRequest) {
	setSSE(w)
	rc := http.NewResponseController(w)
	for i := 1; i <= req.Params.Arguments.Count; i++ {
		n := floorNotification{JSONRPC: "2.0", Method: "notifications/progress", Params: &ProgressParams{ProgressToken: req.Params.Meta.ProgressToken, Progress: i, Total: req.Params.Arguments.Count}}
		if writeEvent(w, rc, &n) != nil {
			return
		}
	}
	_ = writeEvent(w, rc, &floorResponse{JSONRPC: "2.0", ID: req.ID, Result: &ToolResult{Content: []TextContent{{Type: "text", Text: ProgressDone}}}})
}

type subMeta struct {
	SubscriptionID json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
}

type listenAck struct {
	Notifications struct {
		ToolsListChanged bool `json:"toolsListChanged"`
	} `json:"notifications"`
	Meta subMeta `json:"_meta"`
}

type listChanged struct {
	Meta subMeta `json:"_meta"`
}

// listen holds an SSE stream open until the client leaves or the floor is
// closed; Broadcast writes to it.
func (f *Floor) listen(w http.ResponseWriter, r *http.Request, id json.RawMessage) {
	setSSE(w)
	st := &floorStream{w: w, rc: http.NewResponseController(w), id: id}
	ack := listenAck{Meta: subMeta{SubscriptionID: id}}
	ack.Notifications.ToolsListChanged = true
	if writeEvent(w, st.rc, &floorNotification{JSONRPC: "2.0", Method: "notifications/subscriptions/acknowledged", Params: &ack}) != nil {
		return
	}
	f.mu.Lock()
	f.streams[st] = struct{}{}
	f.mu.Unlock()
	select {
	case <-r.Context().Done():
	case <-f.closed:
	}
	f.mu.Lock()
	delete(f.streams, st)
	f.mu.Unlock()
	st.mu.Lock()
	st.w = nil
	st.mu.Unlock()
}

// Broadcast writes notifications/tools/list_changed to every listen stream.
func (f *Floor) Broadcast() {
	f.mu.Lock()
	streams := make([]*floorStream, 0, len(f.streams))
	for st := range f.streams {
		streams = append(streams, st)
	}
	f.mu.Unlock()
	parallel(len(streams), func(i int) {
		st := streams[i]
		st.mu.Lock()
		if st.w != nil {
			_ = writeEvent(st.w, st.rc, &floorNotification{JSONRPC: "2.0", Method: "notifications/tools/list_changed", Params: &listChanged{Meta: subMeta{SubscriptionID: st.id}}})
		}
		st.mu.Unlock()
	})
}

// parallel calls fn(0) to fn(n-1) on one worker per CPU: a broadcast is
// bound by one write system call per stream, which the CPUs can share.
// The floor and the minimal engine fan out alike.
func parallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// Close ends the listen streams.
func (f *Floor) Close() { f.once.Do(func() { close(f.closed) }) }
