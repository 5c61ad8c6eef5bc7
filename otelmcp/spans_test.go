package otelmcp_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestSpansPerEra drives tools/call, resources/read, prompts/get, a
// JSON-RPC error and a tool error with go-sdk's client at 2026-07-28, in a
// 2025-11-25 session and in a 2024-11-05 HTTP+SSE session, and checks
// each call's SERVER span: its name, every attribute of the MCP
// conventions, its parent (the HTTP server span of otelhttp) and the tool
// handler's own span under it.
func TestSpansPerEra(t *testing.T) {
	for _, version := range []string{httptransport.Version20260728, httptransport.Version20251125, httptransport.Version20241105} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, nil)
			cs := f.connect(t, version)
			ctx := context.Background()
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://doc"}); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err != nil {
				t.Fatal(err)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{"text": "x"}})
			if err != nil || !res.IsError {
				t.Fatalf("fail: %v, %+v", err, res)
			}
			_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "nosuch"})
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) {
				t.Fatalf("prompts/get nosuch: %v, want a JSON-RPC error", err)
			}
			echo := f.oneSpan(t, "tools/call echo")
			sid := cs.ID()
			switch version {
			case httptransport.Version20260728:
				sid = "" // no sessions
			case httptransport.Version20241105:
				// go-sdk's SSE client does not expose the sessionId of the
				// endpoint it was given: it is the one of every span.
				if sid = attrsOf(echo)["mcp.session.id"].AsString(); sid == "" {
					t.Error("2024-11-05 call without mcp.session.id")
				}
			}
			checkCommon(t, echo, "tools/call", version, sid)
			want(t, echo, "gen_ai.tool.name", "echo")
			want(t, echo, "gen_ai.operation.name", "execute_tool")
			noAttr(t, echo, "error.type")
			if echo.Status.Code == codes.Error {
				t.Errorf("echo span status %v", echo.Status)
			}
			tool := f.oneSpan(t, toolSpan)
			if tool.Parent.SpanID() != echo.SpanContext.SpanID() || tool.SpanContext.TraceID() != echo.SpanContext.TraceID() {
				t.Errorf("the tool's span has parent %v, want the call's span %v", tool.Parent.SpanID(), echo.SpanContext.SpanID())
			}
			checkHTTPParent(t, f, echo)

			read := f.oneSpan(t, "resources/read")
			checkCommon(t, read, "resources/read", version, sid)
			want(t, read, "mcp.resource.uri", "test://doc")
			noAttr(t, read, "gen_ai.tool.name")

			prompt := f.oneSpan(t, "prompts/get greet")
			checkCommon(t, prompt, "prompts/get", version, sid)
			want(t, prompt, "gen_ai.prompt.name", "greet")

			failed := f.oneSpan(t, "tools/call fail")
			checkCommon(t, failed, "tools/call", version, sid)
			want(t, failed, "error.type", "tool_error")
			noAttr(t, failed, "rpc.response.status_code")
			if failed.Status.Code != codes.Error {
				t.Errorf("tool error span status %v, want Error", failed.Status)
			}

			// A prompt that does not exist names no span (its name is the
			// client's, unbounded), but stays an attribute.
			bad := f.oneSpan(t, "prompts/get")
			want(t, bad, "gen_ai.prompt.name", "nosuch")
			checkCommon(t, bad, "prompts/get", version, sid)
			code := strconv.FormatInt(werr.Code, 10)
			want(t, bad, "error.type", code)
			want(t, bad, "rpc.response.status_code", code)
			if bad.Status.Code != codes.Error {
				t.Errorf("error span status %v, want Error", bad.Status)
			}
		})
	}
}

// checkCommon checks the attributes every call span has.
func checkCommon(t *testing.T, s tracetest.SpanStub, method, version, sid string) {
	t.Helper()
	if s.SpanKind != trace.SpanKindServer {
		t.Errorf("%s: kind %v, want server", s.Name, s.SpanKind)
	}
	want(t, s, "mcp.method.name", method)
	want(t, s, "mcp.protocol.version", version)
	want(t, s, "jsonrpc.protocol.version", "2.0")
	want(t, s, "network.transport", "tcp")
	want(t, s, "network.protocol.name", "http")
	want(t, s, "network.protocol.version", "1.1")
	want(t, s, "client.address", "127.0.0.1")
	a := attrsOf(s)
	if id := a["jsonrpc.request.id"].AsString(); id == "" {
		t.Errorf("%s: no jsonrpc.request.id", s.Name)
	}
	if p := a["client.port"].AsInt64(); p <= 0 || p > 65535 {
		t.Errorf("%s: client.port %d", s.Name, p)
	}
	if sid == "" {
		noAttr(t, s, "mcp.session.id")
	} else {
		want(t, s, "mcp.session.id", sid)
	}
	if version == httptransport.Version20241105 {
		noAttr(t, s, "http.response.status_code") // the answer travels on the event stream
	} else if st := a["http.response.status_code"].AsInt64(); st != 200 {
		t.Errorf("%s: http.response.status_code %d, want 200", s.Name, st)
	}
}

// checkHTTPParent checks that s's parent is an otelhttp server span of
// the same trace.
func checkHTTPParent(t *testing.T, f *fixture, s tracetest.SpanStub) {
	t.Helper()
	for _, p := range f.spans.GetSpans() {
		if p.SpanContext.SpanID() == s.Parent.SpanID() {
			if !isHTTPSpan(p) || p.SpanContext.TraceID() != s.SpanContext.TraceID() {
				t.Errorf("parent of %s is %q (%v)", s.Name, p.Name, p.SpanKind)
			}
			return
		}
	}
	t.Errorf("parent of %s (%v) is no span recorded", s.Name, s.Parent.SpanID())
}

func want(t *testing.T, s tracetest.SpanStub, key, value string) {
	t.Helper()
	v, ok := attrsOf(s)[attribute.Key(key)]
	if !ok {
		t.Errorf("%s: no %s", s.Name, key)
		return
	}
	if v.Emit() != value {
		t.Errorf("%s: %s = %q, want %q", s.Name, key, v.Emit(), value)
	}
}

func noAttr(t *testing.T, s tracetest.SpanStub, key string) {
	t.Helper()
	if v, ok := attrsOf(s)[attribute.Key(key)]; ok {
		t.Errorf("%s: %s = %q, want none", s.Name, key, v.Emit())
	}
}

// TestTraceparentInMetaIsParent: a traceparent the client puts in
// params._meta is the call span's parent; the HTTP server span is a link.
func TestTraceparentInMetaIsParent(t *testing.T) {
	for _, version := range []string{httptransport.Version20260728, httptransport.Version20251125} {
		t.Run(version, func(t *testing.T) {
			f := newFixture(t, nil)
			cs := f.connect(t, version)
			const traceID, spanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
			_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{
				Name: "echo", Arguments: map[string]any{"text": "hi"},
				Meta: mcp.Meta{"traceparent": "00-" + traceID + "-" + spanID + "-01", "tracestate": "vendor=x"},
			})
			if err != nil {
				t.Fatal(err)
			}
			s := f.oneSpan(t, "tools/call echo")
			if got := s.SpanContext.TraceID().String(); got != traceID {
				t.Errorf("trace id %s, want the client's %s", got, traceID)
			}
			if got := s.Parent.SpanID().String(); got != spanID || !s.Parent.IsRemote() {
				t.Errorf("parent %s (remote %v), want the client's span %s", got, s.Parent.IsRemote(), spanID)
			}
			if got := s.SpanContext.TraceState().Get("vendor"); got != "x" {
				t.Errorf("tracestate vendor=%q, want x", got)
			}
			if len(s.Links) != 1 {
				t.Fatalf("%d links, want the HTTP span", len(s.Links))
			}
			var http tracetest.SpanStub
			for _, p := range f.spans.GetSpans() {
				if p.SpanContext.SpanID() == s.Links[0].SpanContext.SpanID() {
					http = p
				}
			}
			if !isHTTPSpan(http) {
				t.Errorf("the link names %v, not an HTTP server span", s.Links[0].SpanContext.SpanID())
			}
			tool := f.oneSpan(t, toolSpan)
			if tool.Parent.SpanID() != s.SpanContext.SpanID() {
				t.Errorf("the tool's span is not a child of the call's")
			}
		})
	}
}

// isHTTPSpan reports whether s is otelhttp's server span (named after
// the HTTP method), not a call's.
func isHTTPSpan(s tracetest.SpanStub) bool {
	_, mcp := attrsOf(s)["mcp.method.name"]
	return s.SpanKind == trace.SpanKindServer && s.Name == "POST" && !mcp
}

// TestUnknownNamesBounded: a method or tool name the client makes up
// names no span and no metric series (mcp.method.name "_OTHER", no
// gen_ai.tool.name), so that clients cannot grow the metrics' cardinality;
// the span's attributes keep what was sent.
func TestUnknownNamesBounded(t *testing.T) {
	f := newFixture(t, nil)
	for i, tool := range []string{"made-up-1", "made-up-2"} {
		if resp, body := f.post2026(t, "alice", i+1, tool); resp.StatusCode != 200 || rpcErrorCode(t, body) == 0 {
			t.Fatalf("unknown tool %s: %d %s, want a JSON-RPC error", tool, resp.StatusCode, body)
		}
	}
	body := `{"jsonrpc":"2.0","id":9,"method":"made/up","params":{"_meta":{` + meta2026 + `}}}`
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Mcp-Protocol-Version", httptransport.Version20260728)
	req.Header.Set("Mcp-Method", "made/up")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown method: %d, want 404", resp.StatusCode)
	}

	if got := len(f.spansNamed("tools/call")); got != 2 {
		t.Errorf("%d spans named tools/call, want the 2 unknown tools' (no tool in the name)", got)
	}
	other := f.oneSpan(t, "_OTHER")
	want(t, other, "mcp.method.name", "made/up")
	want(t, other, "error.type", "-32601")
	rm := f.metrics(t)
	if n, points := histCount(t, rm, "mcp.server.operation.duration", attribute.String("mcp.method.name", "tools/call")); n != 2 || len(points) != 1 {
		t.Errorf("unknown tools: %d calls in %d series, want 2 in 1", n, len(points))
	} else if _, ok := points[0].Attributes.Value("gen_ai.tool.name"); ok {
		t.Errorf("unknown tools' series has a tool name: %v", points[0].Attributes)
	}
	if n, _ := histCount(t, rm, "mcp.server.operation.duration", attribute.String("mcp.method.name", "_OTHER")); n != 1 {
		t.Errorf("unknown method counted %d times under _OTHER, want 1", n)
	}
}
