package bench

import (
	"context"
	"io"
	"sync"
	"testing"

	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// idleConn is an SDK connection with nothing to read until it is closed.
type idleConn struct {
	once   sync.Once
	closed chan struct{}
}

func (c *idleConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

func (c *idleConn) Read(ctx context.Context) (gojsonrpc.Message, error) {
	select {
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *idleConn) Write(context.Context, gojsonrpc.Message) error { return nil }

func (c *idleConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

func (c *idleConn) SessionID() string { return "" }

// BenchmarkGoSDKConnect opens and closes one go-sdk server session on a
// connection that carries nothing: what a session per call (the go-sdk
// engine's way) costs beyond the call's own work. Not part of the table.
func BenchmarkGoSDKConnect(b *testing.B) {
	srv := NewGoSDKServer()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		ss, err := srv.Connect(ctx, &idleConn{closed: make(chan struct{})}, nil)
		if err != nil {
			b.Fatal(err)
		}
		_ = ss.Close()
	}
}
