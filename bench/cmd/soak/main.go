// Command soak runs a mixed MCP load against mcpmount's engines for a
// while and fails if a server keeps what it no longer needs (the
// development guide says how to run it long; CI runs it for 40 s a
// target):
//
//	go run ./cmd/soak [-targets gosdk,mcpgo,redispair] [-load 40s] [-warmup 12s] [-idle 3s] [-redis 127.0.0.1:6379]
//
// Each target is served by this program started again with -serve, a
// process of its own whose goroutines, live heap objects and RSS are
// sampled while the load runs and once it has stopped.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpmount/mcpmount/bench"
	"github.com/mcpmount/mcpmount/bench/soak"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("soak: ")
	serve := flag.String("serve", "", "serve this target and obey commands on stdin (how the soak starts its servers)")
	targets := flag.String("targets", strings.Join(soak.Targets, ","), "the targets to soak, in turn")
	load := flag.Duration("load", 40*time.Second, "how long the load runs against each target")
	warmUp := flag.Duration("warmup", 12*time.Second, "the start of the load that is not judged")
	every := flag.Duration("every", time.Second, "how often the server is sampled")
	idle := flag.Duration("idle", 3*time.Second, "the server's SessionIdleTimeout: abandoned sessions expire after it")
	change := flag.Duration("change", 2*time.Second, "how often the server announces a tools/list change")
	redisAddr := flag.String("redis", envOr("SOAK_REDIS", "127.0.0.1:6379"), "the Redis of the redispair target")
	prefix := flag.String("prefix", "soak:", "the Redis key prefix (-serve)")
	scale := flag.Float64("scale", 1, "multiplies the clients of the load")
	flag.Parse()
	if *serve != "" {
		bench.RaiseFileLimit()
		cfg := soak.ServeConfig{Target: *serve, IdleTimeout: *idle, RedisAddr: *redisAddr, Prefix: *prefix}
		if err := soak.Serve(cfg, *change, os.Stdin, os.Stdout); err != nil {
			log.Fatal(err)
		}
		return
	}
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cfg := soak.Config{
		Exe: exe, Load: soak.DefaultLoad.Scaled(*scale), Duration: *load, WarmUp: *warmUp, Every: *every,
		IdleTimeout: *idle, Change: *change, RedisAddr: *redisAddr, Log: os.Stdout,
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	failed := false
	for _, t := range strings.Split(*targets, ",") {
		r, err := soak.Run(ctx, cfg, t)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(r)
		failed = failed || len(r.Failures) > 0
	}
	if failed {
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
