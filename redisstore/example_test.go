package redisstore_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"net/url"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/examples/roundrobin"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

// ExampleNew runs two instances of one MCP server on one Redis behind a
// round-robin load balancer without affinity: one 2025-11-25 session's
// calls are served by both. redisAddr is the address of a Redis server
// (this package's tests start one on loopback).
func ExampleNew() {
	var targets []*url.URL
	for _, name := range []string{"instance 1", "instance 2"} {
		server := mcp.NewServer(&mcp.Implementation{Name: "svc", Version: "1.0.0"}, nil)
		mcp.AddTool(server, &mcp.Tool{Name: "where"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil, nil
		})
		engine := gosdk.NewEngine(server, nil)
		client := redis.NewClient(&redis.Options{
			Addr:                  redisAddr,
			ContextTimeoutEnabled: true, // commands end by the transport's deadlines
		})
		store := redisstore.New(client, &redisstore.Options{Prefix: "example:"}) // sessions, relay and events
		h := httptransport.New(engine, &httptransport.Options{Sessions: store, Events: store})
		srv := httptest.NewServer(h)
		defer func() {
			_ = h.Shutdown(context.Background()) // closes the store
			srv.Close()
			_ = engine.Close()
			_ = client.Close()
		}()
		u, _ := url.Parse(srv.URL)
		targets = append(targets, u)
	}
	lb := httptest.NewServer(roundrobin.New(targets, nil))
	defer lb.Close()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: lb.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	var servedBy []string
	for range 4 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "where"})
		if err != nil {
			log.Fatal(err)
		}
		servedBy = append(servedBy, res.Content[0].(*mcp.TextContent).Text)
	}
	slices.Sort(servedBy)
	fmt.Println(slices.Compact(servedBy))
	// Output: [instance 1 instance 2]
}
