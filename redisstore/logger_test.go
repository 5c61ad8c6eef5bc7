package redisstore_test

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"

	"github.com/mcpmount/mcpmount/internal/logval"
	"github.com/mcpmount/mcpmount/internal/testutil"
	"github.com/mcpmount/mcpmount/redisstore"
)

// TestClientLoggerBoundsRedisDown: issue 31 item 3. With Redis down, go-redis
// writes a line for every command the store sends; through a ClientLogger,
// 50 session reads write at most 10 of each kind, quoted. (go-redis's
// logger is the process's: the test sets it, so it does not run in
// parallel, and puts the default back.)
func TestClientLoggerBoundsRedisDown(t *testing.T) {
	logs := &testutil.CountingLog{Keep: 1 << 20}
	redis.SetLogger(redisstore.NewClientLogger(slog.New(slog.NewJSONHandler(logs, nil))))
	t.Cleanup(logging.Enable)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String() // where Redis was: nothing listens there now
	_ = ln.Close()
	// One dial a command, and a pool too large for go-redis to start its
	// background dialer (which outlives Close by up to a second).
	client := redis.NewClient(&redis.Options{Addr: down, MaxRetries: -1, DialerRetries: 1, PoolSize: 1000})
	t.Cleanup(func() { _ = client.Close() })
	store := redisstore.New(client, &redisstore.Options{Prefix: testPrefix(t)})
	t.Cleanup(func() { _ = store.Close() })
	for range 50 {
		if _, err := store.Get(context.Background(), "s1"); err == nil {
			t.Fatal("a read with Redis down succeeded")
		}
	}
	kinds := map[string]int{}
	for _, rec := range logs.Records() {
		msg, _ := rec["msg"].(string)
		kinds[msg]++
		if line, _ := rec["line"].(string); !strings.HasPrefix(line, `"`) {
			t.Errorf("%s: line %q not quoted", msg, line)
		}
	}
	if len(kinds) == 0 {
		t.Fatal("go-redis wrote nothing through the ClientLogger")
	}
	for msg, n := range kinds {
		if n > logval.Burst {
			t.Errorf("%d lines %q, want at most %d", n, msg, logval.Burst)
		}
	}
	t.Logf("kinds: %v", kinds)
}
