// Command instance is one process of the tests that stop an instance
// (SIGKILL) under a client's feet: an MCP server on go-sdk, its sessions,
// relay, events and liveness record in Redis, served at /mcp.
//
//	instance -name one -redis 127.0.0.1:6379 -prefix test: [-addr 127.0.0.1:0] [-liveness 3s]
//
// It prints "listening on http://ADDR/mcp" once it serves, and its
// transport's log on stderr. Its tools:
//
//   - "where" answers the instance's name;
//   - "wait" sends a progress notification whose message is the
//     instance's name (to the client's progress token), then waits until
//     its call is cancelled;
//   - "addtool" adds a tool to this instance's server, which announces
//     it (notifications/tools/list_changed) to the sessions it serves, and
//     returns once the transport has taken the announcement (the SDK sends
//     it a little later, on its own).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/jsonrpc"
	"github.com/mcpmount/mcpmount/redisstore"
)

func main() {
	name := flag.String("name", "instance", "the instance's name, as its tools say it")
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	redisAddr := flag.String("redis", "127.0.0.1:6379", "the Redis the instances share")
	prefix := flag.String("prefix", "", "key prefix in Redis, the same for the instances")
	liveness := flag.Duration("liveness", 3*time.Second, "httptransport.Options.LivenessPeriod")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("instance " + *name + ": ")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	client := redis.NewClient(&redis.Options{Addr: *redisAddr, ContextTimeoutEnabled: true})
	defer client.Close()
	store := redisstore.New(client, &redisstore.Options{Prefix: *prefix})
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil)).With("instance", *name)
	sent := make(chan string, 16)
	server := newServer(*name, sent)
	engine := spyEngine{gosdk.NewEngine(server, &gosdk.Options{Logger: logger}), sent}
	h := httptransport.New(engine, &httptransport.Options{
		Sessions:       store,
		Events:         store,
		LivenessPeriod: *liveness,
		RetryInterval:  100 * time.Millisecond, // clients resume a dropped stream at once
		Logger:         logger,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())

	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.Shutdown(sctx) // closes the store
	_ = srv.Shutdown(sctx)
}

type noArgs struct{}

// newServer returns the instance's MCP server; sent reports the methods
// of the messages the transport took from its sessions (spyEngine).
func newServer(name string, sent <-chan string) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	mcp.AddTool(server, &mcp.Tool{Name: "where"}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		return text(name), nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "wait"}, func(ctx context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Message: name, Progress: 1})
		if err != nil {
			return nil, nil, err
		}
		<-ctx.Done()
		return nil, nil, ctx.Err()
	})
	var added atomic.Int32
	mcp.AddTool(server, &mcp.Tool{Name: "addtool"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, any, error) {
		tool := fmt.Sprintf("added%d", added.Add(1))
		server.AddTool(&mcp.Tool{Name: tool, InputSchema: &jsonschema.Schema{Type: "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(tool), nil
		})
		for {
			select {
			case method := <-sent:
				if method == "notifications/tools/list_changed" {
					return text(name + " " + tool), nil, nil
				}
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
		}
	})
	return server
}

// spyEngine is the go-sdk engine, with the methods of the messages its
// sessions send reported on sent once the transport has taken them.
type spyEngine struct {
	*gosdk.Engine
	sent chan<- string
}

// OpenSession implements httptransport.Engine.
func (e spyEngine) OpenSession(ctx context.Context, sess *httptransport.Session, out httptransport.Sender) error {
	return e.Engine.OpenSession(ctx, sess, spySender{out, e.sent})
}

type spySender struct {
	httptransport.Sender
	sent chan<- string
}

func (s spySender) Send(ctx context.Context, msg *jsonrpc.Message) error {
	err := s.Sender.Send(ctx, msg)
	select {
	case s.sent <- msg.Method:
	default:
	}
	return err
}
