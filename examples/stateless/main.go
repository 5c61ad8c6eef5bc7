// Command stateless runs two instances of one MCP server on two loopback
// ports behind a round-robin reverse proxy on a third, so consecutive
// requests of one client land on different instances. 2026-07-28 requests
// are stateless by design; 2025-era clients are served too because the
// instances run with httptransport.Options{Stateless: true} (no
// Mcp-Session-Id, so no instance needs to have seen the client before).
// 2024-11-05 clients have sessions whatever the options (their transport
// has no other form): the proxy sends all of their traffic to the first
// instance, as a load balancer would route it stickily. The echo tool
// names the instance that answered.
//
//	go run ./examples/stateless [-addr 127.0.0.1:8080]
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/examples/internal/demo"
	"github.com/mcpmount/mcpmount/examples/roundrobin"
	"github.com/mcpmount/mcpmount/httptransport"
)

func main() {
	demo.Main("listen address of the proxy", run)
}

// run serves the proxy on ln and the two instances on free loopback ports
// until ctx is done.
func run(ctx context.Context, ln net.Listener, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg       sync.WaitGroup
		errs     = make([]error, 3)
		backends []*url.URL
	)
	for i := range 2 {
		bln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			cancel()
			wg.Wait()
			_ = ln.Close()
			return err
		}
		name := fmt.Sprintf("instance %d", i+1)
		engine := gosdk.NewEngine(demo.NewServer(name, func(context.Context) string { return "served by " + name }), nil)
		endpoint := httptransport.New(engine, &httptransport.Options{Stateless: true})
		mux := http.NewServeMux()
		mux.Handle("/mcp", endpoint)
		u, _ := url.Parse(demo.BaseURL(bln))
		backends = append(backends, u)
		fmt.Fprintf(out, "%s: %s/mcp\n", name, u)
		wg.Go(func() {
			defer engine.Close()
			errs[i] = demo.Serve(ctx, bln, mux, endpoint)
		})
	}
	proxy := roundrobin.New(backends, &roundrobin.Options{Pin: legacy})
	fmt.Fprintf(out, "MCP endpoint (round-robin proxy): %s/mcp\n", demo.BaseURL(ln))
	errs[2] = demo.Serve(ctx, ln, proxy)
	cancel() // the proxy failed to serve, or ctx is done: stop the instances
	wg.Wait()
	return errors.Join(errs...)
}

// legacy reports the requests of 2024-11-05 clients: the GET that opens
// their event stream (no session id, no 2025-era or later version) and the
// POSTs to the endpoint it names (a sessionId query parameter).
func legacy(r *http.Request) bool {
	if r.URL.Query().Has("sessionId") {
		return true
	}
	v := r.Header.Get("Mcp-Protocol-Version")
	return r.Method == http.MethodGet && r.Header.Get("Mcp-Session-Id") == "" && (v == "" || v == "2024-11-05")
}
