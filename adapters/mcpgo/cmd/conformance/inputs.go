package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// form is an elicitation request for the form with the given schema.
func form(message, schema string) mcp.ElicitationParams {
	return mcp.ElicitationParams{Mode: "form", Message: message, RequestedSchema: json.RawMessage(schema)}
}

func askName(message string) mcp.ElicitationParams {
	return form(message, `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
}

// ask is a sampling request for one user message.
func ask(prompt string, maxTokens int) mcp.CreateMessageParams {
	return mcp.CreateMessageParams{
		Messages:  []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent(prompt)}},
		MaxTokens: maxTokens,
	}
}

// elicited reads the field of the elicitation answer named key: done is
// false while there is no answer (or an accepted one without the field).
func elicited(in mcp.InputResponses, key, field string) (value, action string, done bool) {
	r := server.ElicitationResponse(in, key)
	if r == nil || r.Action == "" {
		return "", "", false
	}
	if r.Action != mcp.ElicitationResponseActionAccept {
		return "", string(r.Action), true
	}
	content, _ := r.Content.(map[string]any)
	v, ok := content[field]
	if !ok {
		return "", "", false
	}
	if s, ok := v.(string); ok {
		return s, string(r.Action), true
	}
	return fmt.Sprint(v), string(r.Action), true
}

// sampledText reads the text of the sampling answer named key.
func sampledText(in mcp.InputResponses, key string) (string, bool) {
	r := server.SamplingResponse(in, key)
	if r == nil {
		return "", false
	}
	return contentText(r.Content), true
}

func contentText(c any) string {
	if parsed, err := mcp.ParseSamplingContent(c); err == nil {
		c = parsed
	}
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text
	case *mcp.TextContent:
		return v.Text
	case nil:
		return ""
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// rootsText reads the roots answer named key.
func rootsText(in mcp.InputResponses, key string) (string, bool) {
	r := server.RootsResponse(in, key)
	if r == nil {
		return "", false
	}
	if len(r.Roots) == 0 {
		return "no roots", true
	}
	var parts []string
	for _, root := range r.Roots {
		if root.Name != "" {
			parts = append(parts, fmt.Sprintf("%s (%s)", root.URI, root.Name))
		} else {
			parts = append(parts, root.URI)
		}
	}
	return strings.Join(parts, ", "), true
}

// addClientTools adds the tools that ask the client something.
func (f *fixtures) addClientTools() {
	s := f.srv
	s.AddTool(tool("test_sampling", "Asks the client's LLM (sampling/createMessage) to answer the prompt.", json.RawMessage(`{
		"type": "object",
		"properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
		"required": ["prompt"]
	}`)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := requireCaps(ctx, "sampling"); err != nil {
			return nil, err
		}
		answer, ok := sampledText(req.Params.InputResponses, "sampling")
		if !ok {
			return server.NewInputRequestBuilder("").Sample("sampling", ask(req.GetString("prompt", ""), 100)).ToolResult(), nil
		}
		return text("LLM response: " + answer), nil
	})
	s.AddTool(tool("test_elicitation", "Asks the user (elicitation/create) for a username and an email address.", json.RawMessage(`{
		"type": "object",
		"properties": {"message": {"type": "string", "description": "The message to show the user"}},
		"required": ["message"]
	}`)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return f.elicit(ctx, req, "user", form(req.GetString("message", ""), `{
			"type": "object",
			"properties": {
				"username": {"type": "string", "description": "User's response"},
				"email": {"type": "string", "description": "User's email address"}
			},
			"required": ["username", "email"]
		}`))
	})
	s.AddTool(tool("test_elicitation_sep1034_defaults", "Elicits a form whose fields all have defaults (SEP-1034).", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return f.elicit(ctx, req, "defaults", form("Please review your profile (defaults provided)", `{
				"type": "object",
				"properties": {
					"name": {"type": "string", "description": "Your name", "default": "John Doe"},
					"age": {"type": "integer", "description": "Your age", "default": 30},
					"score": {"type": "number", "description": "Your score", "default": 95.5},
					"status": {"type": "string", "description": "Account status", "enum": ["active", "inactive", "pending"], "default": "active"},
					"verified": {"type": "boolean", "description": "Verified account", "default": true}
				}
			}`))
		})
	s.AddTool(tool("test_elicitation_sep1330_enums", "Elicits a form with every enum form of SEP-1330.", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return f.elicit(ctx, req, "enums", form("Please choose your options", `{
				"type": "object",
				"properties": {
					"untitledSingle": {"type": "string", "description": "Untitled single-select", "enum": ["option1", "option2", "option3"]},
					"titledSingle": {"type": "string", "description": "Titled single-select", "oneOf": [
						{"const": "value1", "title": "First Option"},
						{"const": "value2", "title": "Second Option"},
						{"const": "value3", "title": "Third Option"}
					]},
					"legacyEnum": {"type": "string", "description": "Legacy titled enum", "enum": ["opt1", "opt2", "opt3"], "enumNames": ["Option One", "Option Two", "Option Three"]},
					"untitledMulti": {"type": "array", "description": "Untitled multi-select", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
					"titledMulti": {"type": "array", "description": "Titled multi-select", "items": {"anyOf": [
						{"const": "value1", "title": "First Choice"},
						{"const": "value2", "title": "Second Choice"},
						{"const": "value3", "title": "Third Choice"}
					]}}
				}
			}`))
		})
	s.AddTool(tool("test_streaming_elicitation", "Asks the user to confirm; at 2026-07-28 as an input_required result.", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return f.elicit(ctx, req, "streaming", form("Please confirm to continue",
				`{"type":"object","properties":{"confirmed":{"type":"boolean","description":"Confirm"}},"required":["confirmed"]}`))
		})
}

// elicit asks for params under key and reports the user's answer.
func (f *fixtures) elicit(ctx context.Context, req mcp.CallToolRequest, key string, params mcp.ElicitationParams) (*mcp.CallToolResult, error) {
	if err := requireCaps(ctx, "elicitation"); err != nil {
		return nil, err
	}
	r := server.ElicitationResponse(req.Params.InputResponses, key)
	if r == nil || r.Action == "" {
		return server.NewInputRequestBuilder("").Elicit(key, params).ToolResult(), nil
	}
	content := "{}"
	if r.Content != nil {
		if b, err := json.Marshal(r.Content); err == nil {
			content = string(b) // map keys come out sorted
		}
	}
	if key == "user" {
		return text(fmt.Sprintf("User response: action=%s, content=%s", r.Action, content)), nil
	}
	return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", r.Action, content)), nil
}

// addInputTools adds the input_required fixtures of 2026-07-28 (SEP-2322).
func (f *fixtures) addInputTools() {
	s := f.srv
	s.AddTool(tool("test_input_required_result_elicitation", "Asks for the user's name (input request user_name) and greets them.", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := requireCaps(ctx, "elicitation"); err != nil {
				return nil, err
			}
			name, action, done := elicited(req.Params.InputResponses, "user_name", "name")
			switch {
			case !done:
				return server.NewInputRequestBuilder("").Elicit("user_name", askName("What is your name?")).ToolResult(), nil
			case action != "accept":
				return text(fmt.Sprintf("No name given (%s).", action)), nil
			}
			return text(fmt.Sprintf("Hello, %s!", name)), nil
		})
	s.AddTool(tool("test_input_required_result_sampling", "Asks the client's LLM a question (input request capital_question).", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := requireCaps(ctx, "sampling"); err != nil {
				return nil, err
			}
			answer, ok := sampledText(req.Params.InputResponses, "capital_question")
			if !ok {
				return server.NewInputRequestBuilder("").Sample("capital_question", ask("What is the capital of France?", 100)).ToolResult(), nil
			}
			return text("Sampling response: " + answer), nil
		})
	s.AddTool(tool("test_input_required_result_list_roots", "Asks for the client's roots (input request client_roots).", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := requireCaps(ctx, "roots"); err != nil {
				return nil, err
			}
			roots, ok := rootsText(req.Params.InputResponses, "client_roots")
			if !ok {
				return server.NewInputRequestBuilder("").Roots("client_roots").ToolResult(), nil
			}
			return text("Client roots: " + roots), nil
		})
	const stateTool, tamperedTool = "test_input_required_result_request_state", "test_input_required_result_tampered_state"
	s.AddTool(tool(stateTool, "Asks for confirmation with a tamper-evident requestState; reports state-ok once it verifies.", noArgs),
		f.confirm(stateTool, "state-ok: requestState verified, confirmed=%s"))
	s.AddTool(tool(tamperedTool, "Like the request_state tool; a requestState failing verification gets -32602.", noArgs),
		f.confirm(tamperedTool, "requestState verified, confirmed=%s"))

	const multiTool = "test_input_required_result_multiple_inputs"
	s.AddTool(tool(multiTool, "Asks for a name, a greeting and the roots in one round.", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := requireCaps(ctx, "elicitation", "sampling", "roots"); err != nil {
				return nil, err
			}
			in := req.Params.InputResponses
			if req.Params.RequestState == "" || len(in) == 0 {
				return server.NewInputRequestBuilder(f.seal.seal(flow{Tool: multiTool, Round: 1})).
					Elicit("user_name", askName("What is your name?")).
					Sample("greeting", ask("Generate a greeting", 50)).
					Roots("client_roots").ToolResult(), nil
			}
			if _, err := f.seal.open(req.Params.RequestState, multiTool); err != nil {
				return nil, err
			}
			name, _, okName := elicited(in, "user_name", "name")
			greeting, okGreeting := sampledText(in, "greeting")
			roots, okRoots := rootsText(in, "client_roots")
			if okName && okGreeting && okRoots {
				return text(fmt.Sprintf("name=%s; greeting=%s; roots=%s", name, greeting, roots)), nil
			}
			b := server.NewInputRequestBuilder(req.Params.RequestState)
			if !okName {
				b.Elicit("user_name", askName("What is your name?"))
			}
			if !okGreeting {
				b.Sample("greeting", ask("Generate a greeting", 50))
			}
			if !okRoots {
				b.Roots("client_roots")
			}
			return b.ToolResult(), nil
		})

	const roundsTool = "test_input_required_result_multi_round"
	askColor := form("Step 2: What is your favorite color?", `{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)
	s.AddTool(tool(roundsTool, "Asks for a name, then in a second round (new requestState) for a favourite color.", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := requireCaps(ctx, "elicitation"); err != nil {
				return nil, err
			}
			first := func() *mcp.CallToolResult {
				return server.NewInputRequestBuilder(f.seal.seal(flow{Tool: roundsTool, Round: 1})).
					Elicit("step1", askName("Step 1: What is your name?")).ToolResult()
			}
			if req.Params.RequestState == "" {
				return first(), nil
			}
			fl, err := f.seal.open(req.Params.RequestState, roundsTool)
			if err != nil {
				return nil, err
			}
			in := req.Params.InputResponses
			switch fl.Round {
			case 1:
				name, _, ok := elicited(in, "step1", "name")
				if !ok {
					return server.NewInputRequestBuilder(req.Params.RequestState).Elicit("step1", askName("Step 1: What is your name?")).ToolResult(), nil
				}
				next := f.seal.seal(flow{Tool: roundsTool, Round: 2, Data: map[string]string{"name": name}})
				return server.NewInputRequestBuilder(next).Elicit("step2", askColor).ToolResult(), nil
			case 2:
				color, _, ok := elicited(in, "step2", "color")
				if !ok {
					return server.NewInputRequestBuilder(req.Params.RequestState).Elicit("step2", askColor).ToolResult(), nil
				}
				return text(fmt.Sprintf("%s's favorite color is %s.", fl.Data["name"], color)), nil
			}
			return first(), nil
		})

	s.AddTool(tool("test_input_required_result_capabilities", "Asks only for the kinds of input the client declared for this request.", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			caps := clientCaps(ctx)
			in := req.Params.InputResponses
			var got []string
			b := server.NewInputRequestBuilder("")
			asked := false
			if has(caps, "elicitation") {
				if name, _, ok := elicited(in, "user_name", "name"); ok {
					got = append(got, "name="+name)
				} else {
					b.Elicit("user_name", askName("What is your name?"))
					asked = true
				}
			}
			if has(caps, "sampling") {
				if g, ok := sampledText(in, "greeting"); ok {
					got = append(got, "greeting="+g)
				} else {
					b.Sample("greeting", ask("Generate a greeting", 50))
					asked = true
				}
			}
			if has(caps, "roots") {
				if r, ok := rootsText(in, "client_roots"); ok {
					got = append(got, "roots="+r)
				} else {
					b.Roots("client_roots")
					asked = true
				}
			}
			if asked {
				return b.ToolResult(), nil
			}
			if len(got) == 0 {
				return text("The client declared none of elicitation, sampling and roots; nothing to ask."), nil
			}
			sort.Strings(got)
			return text("Received: " + strings.Join(got, "; ")), nil
		})

	s.AddPrompt(mcp.NewPrompt("test_input_required_result_prompt",
		mcp.WithPromptDescription("A prompt that first asks the user (input request user_context) for its context.")),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if err := requireCaps(ctx, "elicitation"); err != nil {
				return nil, err
			}
			value, action, done := elicited(req.Params.InputResponses, "user_context", "context")
			if !done {
				return server.NewInputRequestBuilder("").Elicit("user_context", form("What context should the prompt use?",
					`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)).PromptResult(), nil
			}
			if action != "accept" {
				value = "(none given)"
			}
			return &mcp.GetPromptResult{
				Description: "Prompt built from user-provided context",
				Messages:    []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Use this context: "+value))},
			}, nil
		})
}

// confirm is a tool that asks for a confirmation under a sealed
// requestState and reports done (with the answer) once the state verifies.
func (f *fixtures) confirm(name, done string) server.ToolHandlerFunc {
	ask := form("Please confirm", `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := requireCaps(ctx, "elicitation"); err != nil {
			return nil, err
		}
		if req.Params.RequestState == "" {
			return server.NewInputRequestBuilder(f.seal.seal(flow{Tool: name, Round: 1})).Elicit("confirm", ask).ToolResult(), nil
		}
		if _, err := f.seal.open(req.Params.RequestState, name); err != nil {
			return nil, err
		}
		r := server.ElicitationResponse(req.Params.InputResponses, "confirm")
		if r == nil || r.Action == "" {
			return server.NewInputRequestBuilder(req.Params.RequestState).Elicit("confirm", ask).ToolResult(), nil
		}
		confirmed := string(r.Action)
		if r.Action == mcp.ElicitationResponseActionAccept {
			confirmed = "false"
			if c, _ := r.Content.(map[string]any); c["ok"] == true {
				confirmed = "true"
			}
		}
		return text(fmt.Sprintf(done, confirmed)), nil
	}
}
