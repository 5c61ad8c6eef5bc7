package main

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

func (f *fixtures) addResources() {
	s := f.srv
	s.AddResource(mcp.NewResource(staticTextURI, "static-text",
		mcp.WithResourceDescription("A static text resource."), mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{
				URI: staticTextURI, MIMEType: "text/plain", Text: "This is the content of the static text resource.",
			}}, nil
		})
	s.AddResource(mcp.NewResource(staticBinaryURI, "static-binary",
		mcp.WithResourceDescription("A static binary resource (a 1x1 PNG)."), mcp.WithMIMEType("image/png")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.BlobResourceContents{URI: staticBinaryURI, MIMEType: "image/png", Blob: f.png}}, nil
		})
	s.AddResource(mcp.NewResource(watchedURI, "watched-resource",
		mcp.WithResourceDescription("A resource clients can subscribe to."), mcp.WithMIMEType("text/plain")),
		func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: watchedURI, MIMEType: "text/plain", Text: "Watched resource."}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate(templateURI, "template-data",
		mcp.WithTemplateDescription("Data for an id, substituted into the URI."), mcp.WithTemplateMIMEType("application/json")),
		func(_ context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			uri := req.Params.URI
			id, ok := strings.CutPrefix(uri, "test://template/")
			if ok {
				id, ok = strings.CutSuffix(id, "/data")
			}
			if !ok || id == "" || strings.Contains(id, "/") {
				return nil, invalidParams("resource not found: %s", uri)
			}
			body, err := json.Marshal(struct {
				ID           string `json:"id"`
				TemplateTest bool   `json:"templateTest"`
				Data         string `json:"data"`
			}{id, true, "Data for ID: " + id})
			if err != nil {
				return nil, err
			}
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(body)}}, nil
		})
}
