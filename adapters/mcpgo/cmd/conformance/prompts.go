package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

func (f *fixtures) addPrompts() {
	s := f.srv
	user := func(c mcp.Content) mcp.PromptMessage { return mcp.NewPromptMessage(mcp.RoleUser, c) }
	s.AddPrompt(mcp.NewPrompt("test_simple_prompt", mcp.WithPromptDescription("A prompt without arguments.")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{user(mcp.NewTextContent("This is a simple prompt for testing."))}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_arguments", mcp.WithPromptDescription("A prompt that substitutes two arguments."),
		mcp.WithArgument("arg1", mcp.ArgumentDescription("First test argument"), mcp.RequiredArgument()),
		mcp.WithArgument("arg2", mcp.ArgumentDescription("Second test argument"), mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			a := req.Params.Arguments
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				user(mcp.NewTextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))),
			}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_embedded_resource", mcp.WithPromptDescription("A prompt that embeds the resource named by resourceUri."),
		mcp.WithArgument("resourceUri", mcp.ArgumentDescription("URI of the resource to embed"), mcp.RequiredArgument())),
		func(_ context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			uri := req.Params.Arguments["resourceUri"]
			if uri == "" {
				return nil, invalidParams("missing required argument resourceUri")
			}
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				user(mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: uri, MIMEType: "text/plain", Text: "Embedded resource content for testing."})),
				user(mcp.NewTextContent("Please process the embedded resource above.")),
			}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("test_prompt_with_image", mcp.WithPromptDescription("A prompt with image content.")),
		func(context.Context, mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
				user(mcp.NewImageContent(f.png, "image/png")),
				user(mcp.NewTextContent("Please analyze the image above.")),
			}}, nil
		})
	f.bumpPrompt()
}

// completer completes test_prompt_with_arguments' arguments and the
// template's id.
type completer struct{}

var candidates = map[string][]string{
	"arg1": {"paris", "park", "party", "testValue1", "testing"},
	"arg2": {"paris", "park", "party", "testValue2", "tested"},
	"id":   {"123", "456", "789"},
}

func complete(arg mcp.CompleteArgument) *mcp.Completion {
	values := []string{} // never null on the wire
	for _, c := range candidates[arg.Name] {
		if strings.HasPrefix(strings.ToLower(c), strings.ToLower(arg.Value)) {
			values = append(values, c)
		}
	}
	return &mcp.Completion{Values: values, Total: len(values)}
}

// CompletePromptArgument implements server.PromptCompletionProvider.
func (completer) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if prompt != "test_prompt_with_arguments" {
		return nil, invalidParams("no completions for prompt %q", prompt)
	}
	return complete(arg), nil
}

// CompleteResourceArgument implements server.ResourceCompletionProvider.
func (completer) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if uri != templateURI {
		return nil, invalidParams("no completions for resource %q", uri)
	}
	return complete(arg), nil
}
