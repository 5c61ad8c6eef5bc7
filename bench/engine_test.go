package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

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
