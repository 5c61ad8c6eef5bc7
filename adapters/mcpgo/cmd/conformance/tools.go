package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

func text(s string) *mcp.CallToolResult { return mcp.NewToolResultText(s) }

func (f *fixtures) addTools() {
	s := f.srv
	s.AddTool(tool("test_simple_text", "Returns one text content item.", noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("This is a simple text response for testing."), nil
		})
	s.AddTool(tool("test_image_content", "Returns a 1x1 red PNG as image content.", noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(f.png, "image/png")}}, nil
		})
	s.AddTool(tool("test_audio_content", "Returns a short WAV tone as audio content.", noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewAudioContent(f.wav, "audio/wav")}}, nil
		})
	s.AddTool(tool("test_embedded_resource", "Returns an embedded text resource.", noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(mcp.TextResourceContents{
				URI: "test://embedded-resource", MIMEType: "text/plain", Text: "This is an embedded resource content.",
			})}}, nil
		})
	s.AddTool(tool("test_multiple_content_types", "Returns text, an image and an embedded resource together.", noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				mcp.NewTextContent("Multiple content types test:"),
				mcp.NewImageContent(f.png, "image/png"),
				mcp.NewEmbeddedResource(mcp.TextResourceContents{
					URI: "test://mixed-content-resource", MIMEType: "application/json", Text: `{"test":"data","value":123}`,
				}),
			}}, nil
		})
	s.AddTool(tool("test_tool_with_logging", "Logs three info messages, 50 ms apart, while it runs.", noArgs),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
				if i > 0 {
					if err := sleep(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
				}
				f.log(ctx, "test_tool_with_logging", msg)
			}
			return text("Tool with logging executed successfully"), nil
		})
	s.AddTool(tool("test_logging_tool", "Logs three info messages at once.", noArgs),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				f.log(ctx, "test_logging_tool", fmt.Sprintf("log message %d", i))
			}
			return text("logged 3 messages"), nil
		})
	s.AddTool(tool("test_error_handling", "Always fails with a tool error (isError: true).", noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("This tool intentionally returns an error for testing"), nil
		})
	s.AddTool(tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100, 50 ms apart, given a progress token.", noArgs),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tok := progressToken(req)
			for i, p := range []int{0, 50, 100} {
				if i > 0 {
					if err := sleep(ctx, 50*time.Millisecond); err != nil {
						return nil, err
					}
				}
				if tok != nil {
					if err := f.srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{"progressToken": tok, "progress": p, "total": 100}); err != nil {
						return nil, err
					}
				}
			}
			return text("Tool with progress executed successfully"), nil
		})
	f.addClientTools()
	s.AddTool(tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features", json.RawMessage(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
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
	}`)), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("received: " + string(req.Params.RawArguments)), nil
	})
	// server-sse-polling wants the POST's stream closed mid-call; neither
	// mcp-go nor the engine can ask the transport for that, so the tool
	// only takes its time (the scenario is unscored).
	s.AddTool(tool("test_reconnection", "Takes about half a second, then answers.", noArgs),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := sleep(ctx, 550*time.Millisecond); err != nil {
				return nil, err
			}
			return text("Reconnection test completed"), nil
		})
	s.AddTool(tool("test_missing_capability", "Needs the client's sampling capability; without it the call fails with -32021.", noArgs),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if !has(clientCaps(ctx), "sampling") {
				return nil, requireCaps(ctx, "sampling")
			}
			return text("client declared the sampling capability"), nil
		})
	s.AddTool(tool("test_trigger_tool_change", "Changes the tool list (re-registers "+dynamicTool+").", noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprintf("tool list changed (revision %d)", f.bumpTool())), nil
		})
	s.AddTool(tool("test_trigger_prompt_change", "Changes the prompt list (re-registers "+dynamicPrompt+").", noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprintf("prompt list changed (revision %d)", f.bumpPrompt())), nil
		})
	f.bumpTool()
	s.AddTool(tool("test_custom_header", "Echoes its region argument, which clients mirror into the Mcp-Param-Region header.", json.RawMessage(`{
		"type": "object",
		"properties": {"region": {"type": "string", "description": "Region", "x-mcp-header": "Region"}},
		"required": ["region"]
	}`)), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("region: " + req.GetString("region", "")), nil
	})
	f.addInteropTools()
}

// log sends an info log message for the call: mcp-go applies the
// session's level (2025-era) or the request's _meta logLevel (2026-07-28).
func (f *fixtures) log(ctx context.Context, logger, msg string) {
	_ = f.srv.SendLogMessageToClient(ctx, mcp.NewLoggingMessageNotification(mcp.LoggingLevelInfo, logger, msg))
}

// progressToken is the request's progress token, or nil.
func progressToken(req mcp.CallToolRequest) mcp.ProgressToken {
	if req.Params.Meta == nil {
		return nil
	}
	return req.Params.Meta.ProgressToken
}

// bumpTool (re-)registers the dynamic tool with a new description: the
// tool list changes and mcp-go announces it.
func (f *fixtures) bumpTool() int {
	f.mu.Lock()
	f.toolRev++
	rev := f.toolRev
	f.mu.Unlock()
	f.srv.AddTool(tool(dynamicTool, fmt.Sprintf("Changes whenever test_trigger_tool_change is called (revision %d).", rev), noArgs),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(fmt.Sprintf("dynamic tool revision %d", rev)), nil
		})
	return rev
}

// bumpPrompt does the same for the dynamic prompt.
func (f *fixtures) bumpPrompt() int {
	f.mu.Lock()
	f.promptRev++
	rev := f.promptRev
	f.mu.Unlock()
	f.srv.AddPrompt(mcp.NewPrompt(dynamicPrompt, mcp.WithPromptDescription(fmt.Sprintf("Changes whenever test_trigger_prompt_change is called (revision %d).", rev))),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(fmt.Sprintf("dynamic prompt revision %d", rev))),
			}}, nil
		})
	return rev
}

// addInteropTools adds the tools of interop/*.test.mjs.
func (f *fixtures) addInteropTools() {
	s := f.srv
	s.AddTool(tool("progress", "Sends count progress notifications (default 5), waiting intervalMs (default 10) after each, then answers.", json.RawMessage(`{
		"type": "object",
		"properties": {
			"count": {"type": "integer", "minimum": 0, "maximum": 1000},
			"intervalMs": {"type": "integer", "minimum": 0, "maximum": 1000}
		}
	}`)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		count := min(max(req.GetInt("count", 5), 0), 1000)
		interval := min(max(req.GetInt("intervalMs", 10), 0), 1000)
		tok := progressToken(req)
		sent := 0
		for i := 1; i <= count; i++ {
			if tok != nil {
				if err := f.srv.SendNotificationToClient(ctx, "notifications/progress", map[string]any{
					"progressToken": tok, "progress": i, "total": count, "message": fmt.Sprintf("step %d of %d", i, count),
				}); err != nil {
					return nil, err
				}
				sent++
			}
			// A pause after every step, the last included: the TS SDK v1
			// client drops a progress notification it reads in the same
			// chunk as the answer.
			if err := sleep(ctx, time.Duration(interval)*time.Millisecond); err != nil {
				return nil, err
			}
		}
		return text(fmt.Sprintf("sent %d progress notifications", sent)), nil
	})
	s.AddTool(tool("slow", "Waits until cancelled or seconds (default and at most 30) have passed; id names the call for slow_status.", json.RawMessage(`{
		"type": "object",
		"properties": {
			"seconds": {"type": "number", "minimum": 0, "maximum": 30},
			"id": {"type": "string", "description": "Optional caller-chosen id for slow_status"}
		}
	}`)), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		d := slowMax
		if secs := req.GetFloat("seconds", -1); secs >= 0 {
			d = min(time.Duration(secs*float64(time.Second)), slowMax)
		}
		id := req.GetString("id", "")
		f.setSlow(id, "running")
		start := time.Now()
		if err := sleep(ctx, d); err != nil {
			f.setSlow(id, "cancelled")
			fmt.Fprintf(os.Stderr, "slow %q: cancelled after %v\n", id, time.Since(start).Round(time.Millisecond))
			return nil, err
		}
		f.setSlow(id, "finished")
		return text(fmt.Sprintf("slow finished after %v", d)), nil
	})
	s.AddTool(tool("slow_status", "Reports what became of the slow call with the given id: running, cancelled, finished or unknown.", json.RawMessage(`{
		"type": "object",
		"properties": {"id": {"type": "string", "description": "The id passed to slow"}},
		"required": ["id"]
	}`)), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		f.mu.Lock()
		st, ok := f.slow[req.GetString("id", "")]
		f.mu.Unlock()
		if !ok {
			st = "unknown"
		}
		return text(st), nil
	})
}
