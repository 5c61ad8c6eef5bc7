package otelmcp

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/mcpmount/mcpmount/httptransport"
)

// callShape is what a call's span name and its series of
// mcp.server.operation.duration are made of, none of it unique to the
// call: the method, the tool or prompt, the protocol versions.
type callShape struct {
	method    string        // the method of names and series: a known one or otherMethod
	targetKey attribute.Key // keyToolName or keyPromptName; "" for other methods
	target    string        // the tool's or the prompt's name
	version   string        // mcp.protocol.version, "" when none
	proto     string        // network.protocol.version ("1.1", "2"), "" when unknown
}

// shapeOf returns the shape of call, whose params are p.
func shapeOf(call *httptransport.CallInfo, p *callParams) callShape {
	s := callShape{method: call.Method, version: call.Version, proto: protoVersion(call.Proto)}
	if !knownMethods[s.method] {
		s.method = otherMethod
	}
	switch call.Method {
	case "tools/call":
		s.targetKey, s.target = keyToolName, p.Name
	case "prompts/get":
		s.targetKey, s.target = keyPromptName, p.Name
	}
	return s
}

// nameKey is what a span name is made of.
type nameKey struct{ method, target string }

// spanName is the span's name, "{mcp.method.name} {target}", or the
// method alone without a target.
func (s callShape) spanName() string {
	if s.target == "" {
		return s.method
	}
	return s.method + " " + s.target
}

// appendOperation appends gen_ai.operation.name, for a tool's call, and
// mcp.protocol.version, which the span and the series both have.
func (s callShape) appendOperation(attrs []attribute.KeyValue) []attribute.KeyValue {
	if s.targetKey == keyToolName {
		attrs = append(attrs, semconv.GenAIOperationNameExecuteTool)
	}
	if s.version != "" {
		attrs = append(attrs, keyMCPVersion.String(s.version))
	}
	return attrs
}
