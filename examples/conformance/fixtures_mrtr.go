package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Fixtures for the input-required-result-* scenarios (SEP-2322, multi
// round-trip). On 2026-07-28 a handler that needs client input returns
// inputRequests (and, when it must remember something, an integrity-protected
// requestState); the client fulfils them and retries the same call with
// inputResponses. On a 2025-era session go-sdk fulfils the input requests
// itself by sending them to the client, so the same handlers work there too.

// Input request builders, keyed as the scenarios expect.

func askName(message string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: json.RawMessage(
		`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}
}

func askColor() *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: "Step 2: What is your favorite color?", RequestedSchema: json.RawMessage(
		`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)}
}

func askConfirm() *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: "Please confirm", RequestedSchema: json.RawMessage(
		`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)}
}

func askContext() *mcp.ElicitParams {
	return &mcp.ElicitParams{Mode: "form", Message: "What context should the prompt use?", RequestedSchema: json.RawMessage(
		`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)}
}

func askLLM(prompt string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}},
		MaxTokens: maxTokens,
	}
}

// Typed access to input responses. A response of the wrong shape counts as
// missing, so the handler asks again.

type inputResponses = mcp.InputResponseMap

// elicitedString returns content[field] of an accepted elicitation response.
// done is true when the user answered at all (accepted, declined or cancelled).
func elicitedString(in inputResponses, key, field string) (value string, action string, done bool) {
	r, ok := in[key].(*mcp.ElicitResult)
	if !ok || r == nil || r.Action == "" {
		return "", "", false
	}
	if r.Action != "accept" {
		return "", r.Action, true
	}
	v, ok := r.Content[field]
	if !ok {
		return "", "", false
	}
	s, ok := v.(string)
	if !ok {
		s = fmt.Sprint(v)
	}
	return s, r.Action, true
}

func sampled(in inputResponses, key string) (string, bool) {
	r, ok := in[key]
	if !ok || r == nil {
		return "", false
	}
	switch r.(type) {
	case *mcp.CreateMessageWithToolsResult, *mcp.CreateMessageResult:
		return samplingText(r), true
	}
	return "", false
}

func listedRoots(in inputResponses, key string) ([]*mcp.Root, bool) {
	r, ok := in[key].(*mcp.ListRootsResult)
	if !ok || r == nil {
		return nil, false
	}
	return r.Roots, true
}

func describeRoots(roots []*mcp.Root) string {
	if len(roots) == 0 {
		return "no roots"
	}
	var parts []string
	for _, r := range roots {
		if r.Name != "" {
			parts = append(parts, fmt.Sprintf("%s (%s)", r.URI, r.Name))
		} else {
			parts = append(parts, r.URI)
		}
	}
	return strings.Join(parts, ", ")
}

func needInput(reqs mcp.InputRequestMap, state string) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}
}

func (f *fixtures) addInputRequiredTools() {
	s := f.srv
	noArgs := schema(nil)

	s.AddTool(&mcp.Tool{
		Name:        "test_input_required_result_elicitation",
		Description: "Asks for the user's name (elicitation input request user_name) and greets them.",
		InputSchema: noArgs,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := requireCaps(req, "elicitation"); err != nil {
			return nil, err
		}
		name, action, done := elicitedString(req.Params.InputResponses, "user_name", "name")
		switch {
		case !done:
			return needInput(mcp.InputRequestMap{"user_name": askName("What is your name?")}, ""), nil
		case action != "accept":
			return text(fmt.Sprintf("No name given (%s).", action)), nil
		}
		return text(fmt.Sprintf("Hello, %s!", name)), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_input_required_result_sampling",
		Description: "Asks the client's LLM a question (sampling input request capital_question) and returns the answer.",
		InputSchema: noArgs,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := requireCaps(req, "sampling"); err != nil {
			return nil, err
		}
		answer, ok := sampled(req.Params.InputResponses, "capital_question")
		if !ok {
			return needInput(mcp.InputRequestMap{"capital_question": askLLM("What is the capital of France?", 100)}, ""), nil
		}
		return text("Sampling response: " + answer), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_input_required_result_list_roots",
		Description: "Asks for the client's roots (roots/list input request client_roots) and lists them.",
		InputSchema: noArgs,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := requireCaps(req, "roots"); err != nil {
			return nil, err
		}
		roots, ok := listedRoots(req.Params.InputResponses, "client_roots")
		if !ok {
			return needInput(mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}, ""), nil
		}
		return text("Client roots: " + describeRoots(roots)), nil
	})

	const requestStateTool = "test_input_required_result_request_state"
	s.AddTool(&mcp.Tool{
		Name:        requestStateTool,
		Description: "Asks for confirmation with an integrity-protected requestState and reports state-ok once it verifies.",
		InputSchema: noArgs,
	}, f.confirmWithState(requestStateTool, "state-ok: requestState verified, confirmed=%s"))

	const tamperedTool = "test_input_required_result_tampered_state"
	s.AddTool(&mcp.Tool{
		Name:        tamperedTool,
		Description: "Like the request_state tool; a requestState that fails verification is rejected with -32602.",
		InputSchema: noArgs,
	}, f.confirmWithState(tamperedTool, "requestState verified, confirmed=%s"))

	const multipleTool = "test_input_required_result_multiple_inputs"
	s.AddTool(&mcp.Tool{
		Name:        multipleTool,
		Description: "Asks for a name (elicitation), a greeting (sampling) and the roots (roots/list) in one round.",
		InputSchema: noArgs,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := requireCaps(req, "elicitation", "sampling", "roots"); err != nil {
			return nil, err
		}
		all := mcp.InputRequestMap{
			"user_name":    askName("What is your name?"),
			"greeting":     askLLM("Generate a greeting", 50),
			"client_roots": &mcp.ListRootsParams{},
		}
		in := req.Params.InputResponses
		if req.Params.RequestState == "" || len(in) == 0 {
			return needInput(all, f.state.seal(flowState{Tool: multipleTool, Round: 1})), nil
		}
		if _, err := f.state.open(req.Params.RequestState, multipleTool); err != nil {
			return nil, err
		}
		name, _, okName := elicitedString(in, "user_name", "name")
		greeting, okGreeting := sampled(in, "greeting")
		roots, okRoots := listedRoots(in, "client_roots")
		missing := mcp.InputRequestMap{}
		if !okName {
			missing["user_name"] = all["user_name"]
		}
		if !okGreeting {
			missing["greeting"] = all["greeting"]
		}
		if !okRoots {
			missing["client_roots"] = all["client_roots"]
		}
		if len(missing) > 0 {
			return needInput(missing, req.Params.RequestState), nil
		}
		return text(fmt.Sprintf("name=%s; greeting=%s; roots=%s", name, greeting, describeRoots(roots))), nil
	})

	const multiRoundTool = "test_input_required_result_multi_round"
	s.AddTool(&mcp.Tool{
		Name:        multiRoundTool,
		Description: "Asks for a name, then (in a second round, with an updated requestState) for a favourite color.",
		InputSchema: noArgs,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := requireCaps(req, "elicitation"); err != nil {
			return nil, err
		}
		in := req.Params.InputResponses
		round1 := func() *mcp.CallToolResult {
			return needInput(mcp.InputRequestMap{"step1": askName("Step 1: What is your name?")},
				f.state.seal(flowState{Tool: multiRoundTool, Round: 1}))
		}
		if req.Params.RequestState == "" {
			return round1(), nil
		}
		st, err := f.state.open(req.Params.RequestState, multiRoundTool)
		if err != nil {
			return nil, err
		}
		switch st.Round {
		case 1:
			name, _, ok := elicitedString(in, "step1", "name")
			if !ok {
				return needInput(mcp.InputRequestMap{"step1": askName("Step 1: What is your name?")}, req.Params.RequestState), nil
			}
			next := flowState{Tool: multiRoundTool, Round: 2, Data: map[string]string{"name": name}}
			return needInput(mcp.InputRequestMap{"step2": askColor()}, f.state.seal(next)), nil
		case 2:
			color, _, ok := elicitedString(in, "step2", "color")
			if !ok {
				return needInput(mcp.InputRequestMap{"step2": askColor()}, req.Params.RequestState), nil
			}
			return text(fmt.Sprintf("%s's favorite color is %s.", st.Data["name"], color)), nil
		}
		return round1(), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_input_required_result_capabilities",
		Description: "Asks only for the kinds of input (elicitation, sampling, roots) the client declared for this request.",
		InputSchema: noArgs,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		d := declaredCaps(req.ClientCapabilities())
		in := req.Params.InputResponses
		var got []string
		ask := mcp.InputRequestMap{}
		if d.elicitation {
			if name, _, ok := elicitedString(in, "user_name", "name"); ok {
				got = append(got, "name="+name)
			} else {
				ask["user_name"] = askName("What is your name?")
			}
		}
		if d.sampling {
			if g, ok := sampled(in, "greeting"); ok {
				got = append(got, "greeting="+g)
			} else {
				ask["greeting"] = askLLM("Generate a greeting", 50)
			}
		}
		if d.roots {
			if roots, ok := listedRoots(in, "client_roots"); ok {
				got = append(got, "roots="+describeRoots(roots))
			} else {
				ask["client_roots"] = &mcp.ListRootsParams{}
			}
		}
		if len(ask) > 0 {
			return needInput(ask, ""), nil
		}
		if len(got) == 0 {
			return text("The client declared none of elicitation, sampling and roots; nothing to ask."), nil
		}
		sort.Strings(got)
		return text("Received: " + strings.Join(got, "; ")), nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "test_input_required_result_prompt",
		Description: "A prompt that first asks the user (elicitation input request user_context) for its context.",
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if isModern(req) && !declaredCaps(req.ClientCapabilities()).elicitation {
			return nil, missingCapability("elicitation")
		}
		ctxText, action, done := elicitedString(req.Params.InputResponses, "user_context", "context")
		if !done {
			return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"user_context": askContext()}}, nil
		}
		if action != "accept" {
			ctxText = "(none given)"
		}
		return &mcp.GetPromptResult{
			Description: "Prompt built from user-provided context",
			Messages: []*mcp.PromptMessage{{
				Role:    "user",
				Content: &mcp.TextContent{Text: "Use this context: " + ctxText},
			}},
		}, nil
	})
}

// confirmWithState returns a tool that asks for confirmation and carries an
// HMAC-protected requestState across the round trip. done formats the result
// text with the confirmed value.
func (f *fixtures) confirmWithState(tool, done string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := requireCaps(req, "elicitation"); err != nil {
			return nil, err
		}
		if req.Params.RequestState == "" {
			return needInput(mcp.InputRequestMap{"confirm": askConfirm()},
				f.state.seal(flowState{Tool: tool, Round: 1})), nil
		}
		if _, err := f.state.open(req.Params.RequestState, tool); err != nil {
			return nil, err
		}
		r, ok := req.Params.InputResponses["confirm"].(*mcp.ElicitResult)
		if !ok || r == nil || r.Action == "" {
			return needInput(mcp.InputRequestMap{"confirm": askConfirm()}, req.Params.RequestState), nil
		}
		confirmed := "false"
		if r.Action == "accept" {
			if v, ok := r.Content["ok"].(bool); ok && v {
				confirmed = "true"
			}
		} else {
			confirmed = r.Action
		}
		return text(fmt.Sprintf(done, confirmed)), nil
	}
}

// ---------------------------------------------------------------------------
// requestState: opaque to the client, verified by the server.

// flowState is what a multi round-trip tool remembers between rounds.
type flowState struct {
	Tool    string            `json:"tool"`
	Round   int               `json:"round"`
	Data    map[string]string `json:"data,omitempty"`
	Expires int64             `json:"exp"`
	Nonce   string            `json:"nonce"`
}

const stateTTL = 10 * time.Minute

// stateSealer signs flow states with a per-process HMAC-SHA256 key, so a
// state is accepted only if this process issued it for the same tool and it
// has not expired. The payload is not secret (it holds no secrets).
type stateSealer struct{ key []byte }

func newStateSealer() *stateSealer {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic(err)
	}
	return &stateSealer{key: key}
}

var b64 = base64.RawURLEncoding

func (s *stateSealer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte("mcpmount-conformance/requestState/v1\x00"))
	m.Write(payload)
	return m.Sum(nil)
}

func (s *stateSealer) seal(st flowState) string {
	st.Expires = time.Now().Add(stateTTL).Unix()
	nonce := make([]byte, 12)
	_, _ = rand.Read(nonce)
	st.Nonce = b64.EncodeToString(nonce)
	payload, err := json.Marshal(st)
	if err != nil {
		panic(err)
	}
	return b64.EncodeToString(payload) + "." + b64.EncodeToString(s.mac(payload))
}

var errBadState = errors.New("requestState failed integrity verification")

// open verifies token and returns its state. Any failure is reported to the
// client as Invalid params (-32602).
func (s *stateSealer) open(token, tool string) (flowState, error) {
	st, err := s.verify(token, tool)
	if err != nil {
		return flowState{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid requestState: " + err.Error()}
	}
	return st, nil
}

func (s *stateSealer) verify(token, tool string) (flowState, error) {
	p, m, ok := strings.Cut(token, ".")
	if !ok {
		return flowState{}, errBadState
	}
	payload, err1 := b64.DecodeString(p)
	sig, err2 := b64.DecodeString(m)
	if err1 != nil || err2 != nil || !hmac.Equal(sig, s.mac(payload)) {
		return flowState{}, errBadState
	}
	var st flowState
	if err := json.Unmarshal(payload, &st); err != nil {
		return flowState{}, errBadState
	}
	if st.Tool != tool {
		return flowState{}, fmt.Errorf("requestState was issued for %q", st.Tool)
	}
	if time.Now().Unix() > st.Expires {
		return flowState{}, errors.New("requestState has expired")
	}
	return st, nil
}
