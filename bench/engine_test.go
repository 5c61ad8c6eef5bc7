package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

// BenchmarkGoSDKEngineServe runs the go-sdk engine's Serve on the echo
// call in process, without HTTP: the share of a call that belongs to the
// engine and the SDK behind it. Not part of the table.
func BenchmarkGoSDKEngineServe(b *testing.B) {
	benchEngine(b, BodyEcho2026, Version2026, nil)
}

// BenchmarkGoSDKEngineServe2025 is the same for a call of an initialized
// 2025-11-25 session. Not part of the table.
func BenchmarkGoSDKEngineServe2025(b *testing.B) {
	sess := &httptransport.Session{ID: "bench", Version: Version2025}
	sess.SetState(json.RawMessage(`{"initializeParams":{"protocolVersion":"` + Version2025 + `","capabilities":{},"clientInfo":{"name":"bench","version":"1"}},"initializedParams":{},"negotiatedProtocolVersion":"` + Version2025 + `","logLevel":""}`))
	benchEngine(b, BodyEcho2025, Version2025, sess)
}

func benchEngine(b *testing.B, body, version string, sess *httptransport.Session) {
	e := gosdk.NewEngine(NewGoSDKServer(), &gosdk.Options{Logger: quiet})
	defer e.Close()
	m, err := jsonrpc.Decode([]byte(body))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		call := &httptransport.Call{Request: m, Version: version, Session: sess, Header: http.Header{}}
		resp, err := e.Serve(ctx, call)
		if err != nil || resp.Error != nil {
			b.Fatalf("echo: %v %v", err, resp)
		}
	}
}

// BenchmarkMCPGoHandleMessage runs mcp-go's MCPServer.HandleMessage on
// the echo call in process, without HTTP: the share of mcp-go's time that
// is its server (the part the minimal engine stands in for), not its
// transport. Not part of the table.
func BenchmarkMCPGoHandleMessage(b *testing.B) {
	for _, tc := range []struct{ name, body string }{{"2026", BodyEcho2026}, {"2025", BodyEcho2025}} {
		b.Run(tc.name, func(b *testing.B) {
			s := NewMCPGoServer()
			ctx := s.WithContext(context.Background(), mcpgoTestSession{})
			msg := json.RawMessage(tc.body)
			resp := s.HandleMessage(ctx, msg)
			out, _ := json.Marshal(resp)
			if !bytes.Contains(out, echoWant) {
				b.Fatalf("%s", out)
			}
			b.ReportAllocs()
			for b.Loop() {
				resp := s.HandleMessage(ctx, msg)
				if _, err := json.Marshal(resp); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMinimalServe is the same for the minimal engine. Not part of
// the table.
func BenchmarkMinimalServe(b *testing.B) {
	e := NewMinimalEngine()
	m, err := jsonrpc.Decode([]byte(BodyEcho2026))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		call := &httptransport.Call{Request: m, Version: Version2026, Header: http.Header{}}
		resp, err := e.Serve(ctx, call)
		if err != nil || resp.Error != nil {
			b.Fatal(err)
		}
		if _, err := resp.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}

// mcpgoTestSession is an initialized client session for HandleMessage.
type mcpgoTestSession struct{}

func (mcpgoTestSession) Initialize()       {}
func (mcpgoTestSession) Initialized() bool { return true }
func (mcpgoTestSession) SessionID() string { return "s" }
func (mcpgoTestSession) NotificationChannel() chan<- mcpgo.JSONRPCNotification {
	return make(chan mcpgo.JSONRPCNotification, 1)
}
