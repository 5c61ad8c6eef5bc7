package redisstore_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/mcpmount/mcpmount/redisstore"
)

// redisAddr is the address of the redis-server TestMain started.
var redisAddr string

// TestMain runs the tests against a real redis-server on a free loopback
// port, without persistence, and checks for leaked goroutines once it is
// stopped.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		fmt.Fprintln(os.Stderr, "redisstore tests need redis-server on PATH: apt-get install -y redis-server (Debian, Ubuntu)")
		return 1
	}
	stop, err := startRedis(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting redis-server:", err)
		return 1
	}
	code := m.Run()
	stop()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	return code
}

// startRedis starts redis-server on a free port, waits until it answers
// PING and returns how to stop it.
func startRedis(path string) (stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	cmd := exec.Command(path, "--save", "", "--appendonly", "no", "--port", strconv.Itoa(port), "--bind", "127.0.0.1")
	var out strings.Builder
	exited, stop, err := startProcess(cmd, &out)
	if err != nil {
		return nil, err
	}
	redisAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	client := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer client.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := client.Ping(ctx).Err()
		cancel()
		if err == nil {
			return stop, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("redis-server exited: %s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("no PONG within 10 s: %v; output: %s", err, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startProcess starts cmd with its output going to out, and returns a
// channel closed when it has exited and a stop that interrupts it and
// waits, killing it after 5 s.
func startProcess(cmd *exec.Cmd, out *strings.Builder) (exited <-chan struct{}, stop func(), err error) {
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	return done, func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}, nil
}

// newClient returns a client of its own on the test server, closed at
// the test's end.
func newClient(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: redisAddr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// newStore returns a Store on a client of its own, under a prefix of the
// test's own unless opts names one; both are closed at the test's end.
func newStore(t *testing.T, opts *redisstore.Options) (*redisstore.Store, *redis.Client) {
	t.Helper()
	t.Cleanup(func() { dropKeys(t) }) // last, so that -count=N runs start clean
	c := newClient(t)
	o := redisstore.Options{}
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = testPrefix(t)
	}
	s := redisstore.New(c, &o)
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}) // before the client's (cleanups run last first)
	return s, c
}

// dropKeys deletes the test's keys, through a client of its own (the
// test's may be closed).
func dropKeys(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: redisAddr})
	defer c.Close()
	ctx := context.Background()
	ks, err := c.Keys(ctx, testPrefix(t)+"*").Result()
	if err == nil && len(ks) > 0 {
		err = c.Del(ctx, ks...).Err()
	}
	if err != nil {
		t.Errorf("deleting the test's keys: %v", err)
	}
}

func testPrefix(t *testing.T) string { return "test:" + t.Name() + ":" }

// keys returns the keys under prefix.
func keys(t *testing.T, c *redis.Client, prefix string) []string {
	t.Helper()
	ks, err := c.Keys(context.Background(), prefix+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

func ctx5(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}
