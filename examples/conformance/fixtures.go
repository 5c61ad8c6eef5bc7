package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file registers the fixtures that the server scenarios of
// @modelcontextprotocol/conformance (0.1.16 and 0.2.x) call by name: the
// test_* tools, the test://... resources and template, the test_* prompts and
// completion support. The expected values (texts, MIME types, argument names)
// are the ones those scenarios check. It also registers two plain tools for the
// interop tests in interop/: "progress" and "slow".
//
// Era notes. Tools that need client input (sampling, elicitation, roots) work
// in both eras: on a 2025-era session they send the request to the client on
// the session and wait; on a 2026-07-28 request they answer with an
// input_required result (multi round-trip, SEP-2322) and finish when the
// client retries with inputResponses. Handlers never look at HTTP details, so
// they behave the same behind any transport.

const (
	serverName    = "mcpmount-conformance"
	serverVersion = "0.1.0"

	modernVersion = "2026-07-28"

	staticTextURI   = "test://static-text"
	staticBinaryURI = "test://static-binary"
	watchedURI      = "test://watched-resource"
	templateURI     = "test://template/{id}/data"

	dynamicToolName   = "test_dynamic_tool"
	dynamicPromptName = "test_dynamic_prompt"

	slowToolMax = 30 * time.Second
)

// fixtures holds the state shared by the handlers.
type fixtures struct {
	srv   *mcp.Server
	png   []byte
	wav   []byte
	state *stateSealer

	mu             sync.Mutex
	toolRevision   int
	promptRevision int
	subscribedURIs map[string]int
	slowCalls      map[string]string // slow call id -> running, cancelled or finished
}

// NewServer returns an *mcp.Server with every conformance fixture registered.
func NewServer() *mcp.Server {
	f := &fixtures{
		png:            redPixelPNG(),
		wav:            toneWAV(),
		state:          newStateSealer(),
		subscribedURIs: make(map[string]int),
		slowCalls:      make(map[string]string),
	}
	// Capabilities is left nil on purpose: go-sdk then advertises logging,
	// and infers tools/prompts/resources (listChanged), resources.subscribe
	// and completions from what is registered below.
	f.srv = mcp.NewServer(&mcp.Implementation{
		Name:    serverName,
		Title:   "mcpmount conformance fixtures",
		Version: serverVersion,
	}, &mcp.ServerOptions{
		Instructions:       "Fixture server for the MCP conformance suite and the mcpmount interop tests.",
		CompletionHandler:  f.complete,
		SubscribeHandler:   f.subscribe,
		UnsubscribeHandler: f.unsubscribe,
	})
	f.addTools()
	f.addInputRequiredTools()
	f.addResources()
	f.addPrompts()
	return f.srv
}

// ---------------------------------------------------------------------------
// Helpers

// schema builds a JSON Schema object for a tool input with the given
// properties (name -> schema) and required names.
func schema(props map[string]any, required ...string) json.RawMessage {
	s := map[string]any{"type": "object", "properties": props}
	if props == nil {
		s["properties"] = map[string]any{}
	}
	if len(required) > 0 {
		s["required"] = required
	}
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return b
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// decodeArgs unmarshals tool arguments; an absent body decodes to the zero value.
func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid arguments: " + err.Error()}
	}
	return nil
}

// isModern reports whether the request follows the 2026-07-28 (stateless)
// protocol, where the server cannot send requests to the client.
func isModern(req interface{ ProtocolVersion() string }) bool {
	return req.ProtocolVersion() >= modernVersion
}

// sleep waits for d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// missingCapability is the 2026-07-28 MissingRequiredClientCapabilityError
// (-32021); data.requiredCapabilities is a ClientCapabilities object.
func missingCapability(names ...string) error {
	caps := make(map[string]any, len(names))
	for _, n := range names {
		caps[n] = map[string]any{}
	}
	data, _ := json.Marshal(map[string]any{"requiredCapabilities": caps})
	return &jsonrpc.Error{
		Code:    mcp.CodeMissingRequiredClientCapabilities,
		Message: "missing required client capability: " + strings.Join(names, ", "),
		Data:    data,
	}
}

// declared lists which of sampling, elicitation and roots the client declared
// for this request (per-request _meta in 2026-07-28, initialize otherwise).
type declared struct{ sampling, elicitation, roots bool }

func declaredCaps(caps *mcp.ClientCapabilities) declared {
	if caps == nil {
		return declared{}
	}
	return declared{
		sampling:    caps.Sampling != nil,
		elicitation: caps.Elicitation != nil,
		roots:       caps.RootsV2 != nil || caps.Roots.ListChanged,
	}
}

// requireCaps returns -32021 on a 2026-07-28 request whose client did not
// declare every named capability. 2025-era requests are not checked here:
// the session itself refuses requests the client did not declare.
func requireCaps(req *mcp.CallToolRequest, names ...string) error {
	if !isModern(req) {
		return nil
	}
	d := declaredCaps(req.ClientCapabilities())
	var missing []string
	for _, n := range names {
		ok := map[string]bool{"sampling": d.sampling, "elicitation": d.elicitation, "roots": d.roots}[n]
		if !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return missingCapability(missing...)
	}
	return nil
}

// formatContent renders elicitation content deterministically.
func formatContent(c map[string]any) string {
	if c == nil {
		return "{}"
	}
	b, err := json.Marshal(c) // map keys are sorted
	if err != nil {
		return fmt.Sprint(c)
	}
	return string(b)
}

// ---------------------------------------------------------------------------
// Tools

func (f *fixtures) addTools() {
	s := f.srv
	noArgs := schema(nil)

	s.AddTool(&mcp.Tool{
		Name:        "test_simple_text",
		Description: "Returns a single text content item.",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("This is a simple text response for testing."), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_image_content",
		Description: "Returns a 1x1 red PNG as image content.",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{Data: f.png, MIMEType: "image/png"},
		}}, nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_audio_content",
		Description: "Returns a short WAV tone as audio content.",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.AudioContent{Data: f.wav, MIMEType: "audio/wav"},
		}}, nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_embedded_resource",
		Description: "Returns an embedded text resource.",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI:      "test://embedded-resource",
				MIMEType: "text/plain",
				Text:     "This is an embedded resource content.",
			}},
		}}, nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_multiple_content_types",
		Description: "Returns text, image and embedded resource content together.",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "Multiple content types test:"},
			&mcp.ImageContent{Data: f.png, MIMEType: "image/png"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI:      "test://mixed-content-resource",
				MIMEType: "application/json",
				Text:     `{"test":"data","value":123}`,
			}},
		}}, nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_tool_with_logging",
		Description: "Sends three info log notifications, 50 ms apart, while it runs.",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
			}
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "test_tool_with_logging", Data: msg}); err != nil {
				return nil, err
			}
		}
		return text("Tool with logging executed successfully"), nil
	})

	// Used by server-stateless (2026-07-28) to check that no log notification
	// is sent when the request did not set _meta logLevel. The suppression is
	// the SDK's job; the tool just logs unconditionally and returns quickly.
	s.AddTool(&mcp.Tool{
		Name:        "test_logging_tool",
		Description: "Logs three messages at info level without delay.",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for i := 1; i <= 3; i++ {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "test_logging_tool", Data: fmt.Sprintf("log message %d", i)}); err != nil {
				return nil, err
			}
		}
		return text("logged 3 messages"), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_error_handling",
		Description: "Always fails with a tool error (isError: true).",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := text("This tool intentionally returns an error for testing")
		res.IsError = true
		return res, nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_tool_with_progress",
		Description: "Reports progress 0, 50 and 100 of 100, 50 ms apart, when given a progress token.",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		token := req.Params.GetProgressToken()
		for i, p := range []float64{0, 50, 100} {
			if i > 0 {
				if err := sleep(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
			}
			if token == nil {
				continue
			}
			if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: p, Total: 100,
			}); err != nil {
				return nil, err
			}
		}
		return text("Tool with progress executed successfully"), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_sampling",
		Description: "Asks the client's LLM (sampling/createMessage) to answer the prompt.",
		InputSchema: schema(map[string]any{"prompt": str("The prompt to send to the LLM")}, "prompt"),
	}, f.sampling)

	s.AddTool(&mcp.Tool{
		Name:        "test_elicitation",
		Description: "Asks the user (elicitation/create) for a username and an email address.",
		InputSchema: schema(map[string]any{"message": str("The message to show the user")}, "message"),
	}, f.elicitation)

	s.AddTool(&mcp.Tool{
		Name:        "test_elicitation_sep1034_defaults",
		Description: "Elicits a form whose fields all carry default values (SEP-1034).",
		InputSchema: noArgs,
	}, f.elicitForm("defaults", "Please review your profile (defaults provided)", json.RawMessage(`{
		"type": "object",
		"properties": {
			"name": {"type": "string", "description": "Your name", "default": "John Doe"},
			"age": {"type": "integer", "description": "Your age", "default": 30},
			"score": {"type": "number", "description": "Your score", "default": 95.5},
			"status": {"type": "string", "description": "Account status", "enum": ["active", "inactive", "pending"], "default": "active"},
			"verified": {"type": "boolean", "description": "Verified account", "default": true}
		}
	}`)))

	s.AddTool(&mcp.Tool{
		Name:        "test_elicitation_sep1330_enums",
		Description: "Elicits a form with every enum variant of SEP-1330.",
		InputSchema: noArgs,
	}, f.elicitForm("enums", "Please choose your options", json.RawMessage(`{
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
	}`)))

	// JSON Schema 2020-12 keywords must survive tools/list untouched
	// (SEP-1613, SEP-2106). The raw schema is passed through as is.
	s.AddTool(&mcp.Tool{
		Name:        "json_schema_2020_12_tool",
		Description: "Tool with JSON Schema 2020-12 features",
		InputSchema: json.RawMessage(`{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type": "object",
			"$defs": {
				"address": {
					"$anchor": "addressDef",
					"type": "object",
					"properties": {"street": {"type": "string"}, "city": {"type": "string"}}
				}
			},
			"properties": {
				"name": {"type": "string"},
				"address": {"$ref": "#/$defs/address"},
				"contactMethod": {"type": "string", "enum": ["phone", "email"]},
				"phone": {"type": "string"},
				"email": {"type": "string"}
			},
			"allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
			"if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
			"then": {"required": ["phone"]},
			"else": {"required": ["email"]},
			"additionalProperties": false
		}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("received: " + string(req.Params.Arguments)), nil
	})

	// server-sse-polling (SEP-1699): close the POST's SSE stream mid-call and
	// deliver the result after the client reconnects with Last-Event-ID.
	s.AddTool(&mcp.Tool{
		Name:        "test_reconnection",
		Description: "Closes its SSE response stream mid-call; the result arrives on the resumed stream.",
		InputSchema: noArgs,
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := sleep(ctx, 50*time.Millisecond); err != nil {
			return nil, err
		}
		if req.Extra != nil && req.Extra.CloseSSEStream != nil {
			req.Extra.CloseSSEStream(mcp.CloseSSEStreamArgs{RetryAfter: 200 * time.Millisecond})
		}
		if err := sleep(ctx, 500*time.Millisecond); err != nil {
			return nil, err
		}
		return text("Reconnection test completed"), nil
	})

	// server-stateless (2026-07-28) diagnostics.
	s.AddTool(&mcp.Tool{
		Name:        "test_missing_capability",
		Description: "Needs the client's sampling capability; without it the call fails with -32021.",
		InputSchema: noArgs,
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if !declaredCaps(req.ClientCapabilities()).sampling {
			return nil, missingCapability("sampling")
		}
		return text("client declared the sampling capability"), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_streaming_elicitation",
		Description: "Asks the user to confirm; on 2026-07-28 the request travels as an input_required result, never as a request on the response stream.",
		InputSchema: noArgs,
	}, f.elicitForm("streaming", "Please confirm to continue", json.RawMessage(`{
		"type": "object",
		"properties": {"confirmed": {"type": "boolean", "description": "Confirm"}},
		"required": ["confirmed"]
	}`)))

	s.AddTool(&mcp.Tool{
		Name:        "test_trigger_tool_change",
		Description: "Changes the tool list (re-registers " + dynamicToolName + " with a new revision).",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rev := f.bumpDynamicTool()
		return text(fmt.Sprintf("tool list changed (revision %d)", rev)), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "test_trigger_prompt_change",
		Description: "Changes the prompt list (re-registers " + dynamicPromptName + " with a new revision).",
		InputSchema: noArgs,
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		rev := f.bumpDynamicPrompt()
		return text(fmt.Sprintf("prompt list changed (revision %d)", rev)), nil
	})
	f.bumpDynamicTool()

	// SEP-2243: an argument mirrored into the Mcp-Param-Region header.
	s.AddTool(&mcp.Tool{
		Name:        "test_custom_header",
		Description: "Echoes its region argument, which clients mirror into the Mcp-Param-Region header.",
		InputSchema: json.RawMessage(`{
			"type": "object",
			"properties": {"region": {"type": "string", "description": "Region", "x-mcp-header": "Region"}},
			"required": ["region"]
		}`),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Region string `json:"region"`
		}
		if err := decodeArgs(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		return text("region: " + in.Region), nil
	})

	// Interop tools (interop/*.test.mjs).
	s.AddTool(&mcp.Tool{
		Name:        "progress",
		Description: "Sends count progress notifications (default 5), waiting intervalMs (default 10) after each, then returns.",
		InputSchema: schema(map[string]any{
			"count":      map[string]any{"type": "integer", "minimum": 0, "maximum": 1000},
			"intervalMs": map[string]any{"type": "integer", "minimum": 0, "maximum": 1000},
		}),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		in := struct {
			Count      *int `json:"count"`
			IntervalMs *int `json:"intervalMs"`
		}{}
		if err := decodeArgs(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		count, interval := 5, 10
		if in.Count != nil {
			count = min(max(*in.Count, 0), 1000)
		}
		if in.IntervalMs != nil {
			interval = min(max(*in.IntervalMs, 0), 1000)
		}
		token := req.Params.GetProgressToken()
		sent := 0
		for i := 1; i <= count; i++ {
			if token != nil {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Progress: float64(i), Total: float64(count),
					Message: fmt.Sprintf("step %d of %d", i, count),
				}); err != nil {
					return nil, err
				}
				sent++
			}
			// Pause after every step, the last one included: the TS SDK v1
			// client drops a progress notification that it reads in the same
			// chunk as the response (it handles notifications a microtask
			// later), so the result should not follow the last one at once.
			if err := sleep(ctx, time.Duration(interval)*time.Millisecond); err != nil {
				return nil, err
			}
		}
		return text(fmt.Sprintf("sent %d progress notifications", sent)), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "slow",
		Description: "Waits until the call is cancelled, or seconds (default and maximum 30) have passed. Pass id to query the outcome with slow_status.",
		InputSchema: schema(map[string]any{
			"seconds": map[string]any{"type": "number", "minimum": 0, "maximum": 30},
			"id":      str("Optional caller-chosen id for slow_status"),
		}),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Seconds *float64 `json:"seconds"`
			ID      string   `json:"id"`
		}
		if err := decodeArgs(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		d := slowToolMax
		if in.Seconds != nil && *in.Seconds >= 0 {
			d = min(time.Duration(*in.Seconds*float64(time.Second)), slowToolMax)
		}
		f.setSlowStatus(in.ID, "running")
		start := time.Now()
		if err := sleep(ctx, d); err != nil {
			f.setSlowStatus(in.ID, "cancelled")
			fmt.Fprintf(os.Stderr, "slow %q: cancelled after %v\n", in.ID, time.Since(start).Round(time.Millisecond))
			return nil, err
		}
		f.setSlowStatus(in.ID, "finished")
		return text(fmt.Sprintf("slow finished after %v", d)), nil
	})

	s.AddTool(&mcp.Tool{
		Name:        "slow_status",
		Description: "Reports what became of the slow call with the given id: running, cancelled, finished or unknown.",
		InputSchema: schema(map[string]any{"id": str("The id passed to slow")}, "id"),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			ID string `json:"id"`
		}
		if err := decodeArgs(req.Params.Arguments, &in); err != nil {
			return nil, err
		}
		f.mu.Lock()
		st, ok := f.slowCalls[in.ID]
		f.mu.Unlock()
		if !ok {
			st = "unknown"
		}
		return text(st), nil
	})
}

// setSlowStatus records the state of the slow call id (ignored when empty).
// The map is bounded: it is cleared when it grows past 1000 ids.
func (f *fixtures) setSlowStatus(id, status string) {
	if id == "" {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.slowCalls[id]; !ok && len(f.slowCalls) >= 1000 {
		clear(f.slowCalls)
	}
	f.slowCalls[id] = status
}

// bumpDynamicTool (re-)registers the dynamic tool with a new description,
// which changes the tool list and makes go-sdk send tools/list_changed.
func (f *fixtures) bumpDynamicTool() int {
	f.mu.Lock()
	f.toolRevision++
	rev := f.toolRevision
	f.mu.Unlock()
	f.srv.AddTool(&mcp.Tool{
		Name:        dynamicToolName,
		Description: fmt.Sprintf("Changes whenever test_trigger_tool_change is called (revision %d).", rev),
		InputSchema: schema(nil),
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(fmt.Sprintf("dynamic tool revision %d", rev)), nil
	})
	return rev
}

func (f *fixtures) bumpDynamicPrompt() int {
	f.mu.Lock()
	f.promptRevision++
	rev := f.promptRevision
	f.mu.Unlock()
	f.srv.AddPrompt(&mcp.Prompt{
		Name:        dynamicPromptName,
		Description: fmt.Sprintf("Changes whenever test_trigger_prompt_change is called (revision %d).", rev),
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
			Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("dynamic prompt revision %d", rev)},
		}}}, nil
	})
	return rev
}

// sampling implements test_sampling.
func (f *fixtures) sampling(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Prompt string `json:"prompt"`
	}
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	params := &mcp.CreateMessageParams{
		Messages:  []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Prompt}}},
		MaxTokens: 100,
	}
	if isModern(req) {
		if err := requireCaps(req, "sampling"); err != nil {
			return nil, err
		}
		resp, ok := req.Params.InputResponses["sampling"]
		if !ok {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sampling": params}}, nil
		}
		return text("LLM response: " + samplingText(resp)), nil
	}
	if !declaredCaps(req.ClientCapabilities()).sampling {
		res := text("client does not support sampling")
		res.IsError = true
		return res, nil
	}
	res, err := req.Session.CreateMessage(ctx, params)
	if err != nil {
		return nil, err
	}
	return text("LLM response: " + contentText(res.Content)), nil
}

// elicitation implements test_elicitation.
func (f *fixtures) elicitation(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Message string `json:"message"`
	}
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return nil, err
	}
	return f.elicitForm("user", in.Message, json.RawMessage(`{
		"type": "object",
		"properties": {
			"username": {"type": "string", "description": "User's response"},
			"email": {"type": "string", "description": "User's email address"}
		},
		"required": ["username", "email"]
	}`))(ctx, req)
}

// elicitForm returns a tool handler that asks the user to fill in the form
// described by requested and reports the answer. key names the input request
// on 2026-07-28 (and selects the wording of the result text).
func (f *fixtures) elicitForm(key, message string, requested json.RawMessage) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		params := &mcp.ElicitParams{Mode: "form", Message: message, RequestedSchema: requested}
		var res *mcp.ElicitResult
		if isModern(req) {
			if err := requireCaps(req, "elicitation"); err != nil {
				return nil, err
			}
			r, ok := req.Params.InputResponses[key].(*mcp.ElicitResult)
			if !ok {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: params}}, nil
			}
			res = r
		} else {
			if !declaredCaps(req.ClientCapabilities()).elicitation {
				r := text("client does not support elicitation")
				r.IsError = true
				return r, nil
			}
			r, err := req.Session.Elicit(ctx, params)
			if err != nil {
				return nil, err
			}
			res = r
		}
		if key == "user" {
			return text(fmt.Sprintf("User response: action=%s, content=%s", res.Action, formatContent(res.Content))), nil
		}
		return text(fmt.Sprintf("Elicitation completed: action=%s, content=%s", res.Action, formatContent(res.Content))), nil
	}
}

// samplingText extracts the text of a sampling response given as an input
// response (2026-07-28).
func samplingText(r mcp.InputResponse) string {
	switch v := r.(type) {
	case *mcp.CreateMessageWithToolsResult:
		var parts []string
		for _, c := range v.Content {
			parts = append(parts, contentText(c))
		}
		return strings.Join(parts, " ")
	case *mcp.CreateMessageResult:
		return contentText(v.Content)
	}
	return ""
}

func contentText(c mcp.Content) string {
	if t, ok := c.(*mcp.TextContent); ok {
		return t.Text
	}
	if c == nil {
		return ""
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// ---------------------------------------------------------------------------
// Resources

func (f *fixtures) addResources() {
	s := f.srv
	s.AddResource(&mcp.Resource{
		URI:         staticTextURI,
		Name:        "static-text",
		Description: "A static text resource.",
		MIMEType:    "text/plain",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: staticTextURI, MIMEType: "text/plain", Text: "This is the content of the static text resource.",
		}}}, nil
	})

	s.AddResource(&mcp.Resource{
		URI:         staticBinaryURI,
		Name:        "static-binary",
		Description: "A static binary resource (1x1 PNG).",
		MIMEType:    "image/png",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: staticBinaryURI, MIMEType: "image/png", Blob: f.png,
		}}}, nil
	})

	s.AddResource(&mcp.Resource{
		URI:         watchedURI,
		Name:        "watched-resource",
		Description: "A resource clients can subscribe to.",
		MIMEType:    "text/plain",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		f.mu.Lock()
		n := f.subscribedURIs[watchedURI]
		f.mu.Unlock()
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: watchedURI, MIMEType: "text/plain", Text: fmt.Sprintf("Watched resource (%d subscriber(s)).", n),
		}}}, nil
	})

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: templateURI,
		Name:        "template-data",
		Description: "Data for an id, substituted into the URI.",
		MIMEType:    "application/json",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		id, ok := strings.CutPrefix(uri, "test://template/")
		if ok {
			id, ok = strings.CutSuffix(id, "/data")
		}
		if !ok || id == "" || strings.Contains(id, "/") {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		body, err := json.Marshal(struct {
			ID           string `json:"id"`
			TemplateTest bool   `json:"templateTest"`
			Data         string `json:"data"`
		}{id, true, "Data for ID: " + id})
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: uri, MIMEType: "application/json", Text: string(body),
		}}}, nil
	})
}

func (f *fixtures) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if !f.knownURI(req.Params.URI) {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	f.mu.Lock()
	f.subscribedURIs[req.Params.URI]++
	f.mu.Unlock()
	return nil
}

func (f *fixtures) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	f.mu.Lock()
	if f.subscribedURIs[req.Params.URI] > 0 {
		f.subscribedURIs[req.Params.URI]--
	}
	f.mu.Unlock()
	return nil
}

func (f *fixtures) knownURI(uri string) bool {
	if slices.Contains([]string{staticTextURI, staticBinaryURI, watchedURI}, uri) {
		return true
	}
	rest, ok := strings.CutPrefix(uri, "test://template/")
	return ok && strings.HasSuffix(rest, "/data")
}

// ---------------------------------------------------------------------------
// Prompts

func (f *fixtures) addPrompts() {
	s := f.srv
	user := func(c mcp.Content) *mcp.PromptMessage { return &mcp.PromptMessage{Role: "user", Content: c} }

	s.AddPrompt(&mcp.Prompt{
		Name:        "test_simple_prompt",
		Description: "A prompt without arguments.",
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			user(&mcp.TextContent{Text: "This is a simple prompt for testing."}),
		}}, nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "test_prompt_with_arguments",
		Description: "A prompt that substitutes two arguments.",
		Arguments: []*mcp.PromptArgument{
			{Name: "arg1", Description: "First test argument", Required: true},
			{Name: "arg2", Description: "Second test argument", Required: true},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			user(&mcp.TextContent{Text: fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"])}),
		}}, nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "test_prompt_with_embedded_resource",
		Description: "A prompt that embeds the resource named by resourceUri.",
		Arguments: []*mcp.PromptArgument{
			{Name: "resourceUri", Description: "URI of the resource to embed", Required: true},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		uri := req.Params.Arguments["resourceUri"]
		if uri == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "missing required argument resourceUri"}
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			user(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
				URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing.",
			}}),
			user(&mcp.TextContent{Text: "Please process the embedded resource above."}),
		}}, nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "test_prompt_with_image",
		Description: "A prompt with image content.",
	}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			user(&mcp.ImageContent{Data: f.png, MIMEType: "image/png"}),
			user(&mcp.TextContent{Text: "Please analyze the image above."}),
		}}, nil
	})

	f.bumpDynamicPrompt()
}

// ---------------------------------------------------------------------------
// Completions

var completionCandidates = map[string][]string{
	"arg1": {"paris", "park", "party", "testValue1", "testing"},
	"arg2": {"paris", "park", "party", "testValue2", "tested"},
	"id":   {"123", "456", "789"},
}

func (f *fixtures) complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	if p == nil || p.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "missing ref"}
	}
	switch {
	case p.Ref.Type == "ref/prompt" && p.Ref.Name == "test_prompt_with_arguments":
	case p.Ref.Type == "ref/resource" && p.Ref.URI == templateURI:
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no completions for %s %q", p.Ref.Type, p.Ref.Name+p.Ref.URI)}
	}
	values := []string{} // never null on the wire
	for _, c := range completionCandidates[p.Argument.Name] {
		if strings.HasPrefix(strings.ToLower(c), strings.ToLower(p.Argument.Value)) {
			values = append(values, c)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{
		Values: values, Total: len(values), HasMore: false,
	}}, nil
}
