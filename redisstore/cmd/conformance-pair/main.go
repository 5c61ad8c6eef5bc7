// Command conformance-pair serves the conformance fixtures from two
// instances that share one Redis, behind a round-robin proxy without
// affinity, as a plain load balancer in front of a scaled-out service: the
// setting that scripts/ci.d/scaleout.sh runs the conformance suite and the
// interop tests against.
//
//	conformance-pair -redis 127.0.0.1:6390 -addr 127.0.0.1:0 [-token T]
//
// (or MCP_PAIR_REDIS=127.0.0.1:6390 in the environment, which is how the
// scripts that start servers with -addr and -token only pass it).
//
// It starts itself twice more as the instances (-instance), each a process
// of its own with its own Redis client, redisstore.Store, MCP server and
// handler, waits for their "listening on" lines, then proxies /mcp and
// /mcp-short to them in turn and prints "listening on http://ADDR/mcp".
// SIGINT or SIGTERM stops it and the instances.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/adapters/gosdk"
	"github.com/mcpmount/mcpmount/examples/conformance/fixtures"
	"github.com/mcpmount/mcpmount/examples/roundrobin"
	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3000", "listen address (host:port; port 0 picks a free port)")
	token := flag.String("token", "", "if set, require the header \"Authorization: Bearer TOKEN\" on every request")
	redisAddr := flag.String("redis", envOr("MCP_PAIR_REDIS", "127.0.0.1:6379"), "the Redis both instances share (default $MCP_PAIR_REDIS)")
	prefix := flag.String("prefix", "", "key prefix in Redis (default: one of this run's own)")
	instance := flag.Bool("instance", false, "run as one of the instances (started by the proxy)")
	flag.Parse()
	log.SetFlags(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *instance {
		log.SetPrefix("conformance-pair instance: ")
		serveInstance(ctx, *addr, *token, *redisAddr, *prefix)
		return
	}
	log.SetPrefix("conformance-pair: ")
	if *prefix == "" {
		*prefix = fmt.Sprintf("conformance-pair:%d:", os.Getpid())
	}
	serveProxy(ctx, *addr, *token, *redisAddr, *prefix)
}

// serveInstance serves the fixtures with sessions and events in Redis.
func serveInstance(ctx context.Context, addr, token, redisAddr, prefix string) {
	client := redis.NewClient(&redis.Options{Addr: redisAddr, ContextTimeoutEnabled: true})
	store := redisstore.New(client, &redisstore.Options{Prefix: prefix})
	// One key for both instances: a multi-round-trip retry may reach the
	// other one.
	key := sha256.Sum256([]byte(prefix))
	srv := fixtures.NewServerWith(&fixtures.Options{Key: key[:], Shared: shared{client, prefix + "fixture:"}})
	mux := http.NewServeMux()
	h := httptransport.New(gosdk.NewEngine(srv, nil), &httptransport.Options{Sessions: store, Events: store})
	mux.Handle("/mcp", h)
	short := httptransport.New(gosdk.NewEngine(srv, nil), &httptransport.Options{
		Sessions: store, Events: store, MaxStreamDuration: 300 * time.Millisecond, RetryInterval: 50 * time.Millisecond,
	})
	mux.Handle("/mcp-short", short)
	var handler http.Handler = mux
	if token != "" {
		handler = requireBearer(token, mux)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	hs := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = short.Shutdown(shutdownCtx)
	_ = h.Shutdown(shutdownCtx) // closes the store
	_ = hs.Shutdown(shutdownCtx)
	_ = client.Close()
}

// serveProxy starts the two instances and proxies to them in turn.
func serveProxy(ctx context.Context, addr, token, redisAddr, prefix string) {
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	var targets []*url.URL
	var children []*exec.Cmd
	defer func() {
		for _, c := range children {
			_ = c.Process.Signal(syscall.SIGTERM)
		}
		for _, c := range children {
			_ = c.Wait()
		}
	}()
	for range 2 {
		args := []string{"-instance", "-addr", "127.0.0.1:0", "-redis", redisAddr, "-prefix", prefix}
		if token != "" {
			args = append(args, "-token", token)
		}
		cmd := exec.Command(self, args...)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			log.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			log.Fatal(err)
		}
		children = append(children, cmd)
		line, err := bufio.NewReader(out).ReadString('\n')
		base, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
		if err != nil || !ok {
			log.Printf("an instance did not start: %q %v", line, err)
			return
		}
		u, err := url.Parse(strings.TrimSuffix(base, "/mcp"))
		if err != nil {
			log.Print(err)
			return
		}
		targets = append(targets, u)
	}
	proxy := roundrobin.New(targets, &roundrobin.Options{
		KeepHost:  true, // the instances check Host on loopback
		Transport: loggedTransport{http.DefaultTransport},
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Print(err)
		return
	}
	hs := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	fmt.Printf("listening on http://%s/mcp\n", ln.Addr())
	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		log.Print(err)
	}
}

// shared keeps the fixtures' records (the slow tool's outcomes) in Redis,
// where both instances read them.
type shared struct {
	client *redis.Client
	prefix string
}

func (s shared) Get(key string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.client.Get(ctx, s.prefix+key).Val()
}

func (s shared) Set(key, value string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.client.Set(ctx, s.prefix+key, value, time.Hour)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// requireBearer rejects requests without the expected bearer token, so
// that the interop tests check their clients send it.
func requireBearer(token string, next http.Handler) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcpmount-conformance"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
