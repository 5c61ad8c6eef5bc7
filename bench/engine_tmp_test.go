package bench

import (
	"context"
	"net/http"
	"testing"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
)

func BenchmarkTmpEngine(b *testing.B) {
	srv := NewGoSDKServer()
	e := gosdk.NewEngine(srv, &gosdk.Options{Logger: quiet})
	defer e.Close()
	m, err := jsonrpc.Decode([]byte(BodyEcho2026))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for range b.N {
		call := &httptransport.Call{Request: m, Version: Version2026, Header: http.Header{}}
		resp, err := e.Serve(ctx, call)
		if err != nil || resp.Error != nil {
			b.Fatal(err, resp)
		}
	}
}
