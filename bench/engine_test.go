package bench

import (
	"context"
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
	e := gosdk.NewEngine(NewGoSDKServer(), &gosdk.Options{Logger: quiet})
	defer e.Close()
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
			b.Fatalf("echo: %v %v", err, resp)
		}
	}
}
