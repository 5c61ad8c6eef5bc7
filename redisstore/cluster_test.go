package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

// clusterNodes is the number of masters of the test cluster: enough that
// a session's keys, its relay channel and another session's land on
// different nodes.
const clusterNodes = 3

// startCluster starts a Redis Cluster of clusterNodes masters (no
// replicas, no persistence) on free loopback ports, joins it with
// redis-cli --cluster create, waits until every node reports
// cluster_state:ok, and stops it when the test ends. It returns the
// nodes' addresses.
func startCluster(t *testing.T) []string {
	t.Helper()
	server, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server not on PATH")
	}
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Fatal("redis-cli not on PATH (Debian's redis-tools, which redis-server brings)")
	}
	addrs := make([]string, clusterNodes)
	for i := range addrs {
		port := clusterPort(t)
		dir := t.TempDir()
		cmd := exec.Command(server, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes.conf"), "--dir", dir)
		var out strings.Builder
		exited, stop, err := startProcess(cmd, &out)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		addrs[i] = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		waitPing(t, addrs[i], exited, &out)
	}
	create := exec.Command(cli, append(append([]string{"--cluster", "create"}, addrs...), "--cluster-replicas", "0", "--cluster-yes")...)
	if out, err := create.CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	for _, addr := range addrs {
		c := redis.NewClient(&redis.Options{Addr: addr})
		deadline := time.Now().Add(15 * time.Second)
		for {
			info, err := c.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") {
				break
			}
			if time.Now().After(deadline) {
				_ = c.Close()
				t.Fatalf("%s: no cluster_state:ok within 15 s: %v %s", addr, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = c.Close()
	}
	return addrs
}

// clusterPort returns a free port whose cluster bus port (10000 above) is
// free too.
func clusterPort(t *testing.T) int {
	t.Helper()
	for range 100 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if port+10000 > 65535 {
			_ = ln.Close()
			continue
		}
		bus, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port+10000)))
		_ = ln.Close()
		if err != nil {
			continue
		}
		_ = bus.Close()
		return port
	}
	t.Fatal("no free port pair for a cluster node")
	return 0
}

// waitPing waits until the node at addr answers PING.
func waitPing(t *testing.T, addr string, exited <-chan struct{}, out *strings.Builder) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for c.Ping(context.Background()).Err() != nil {
		select {
		case <-exited:
			t.Fatalf("redis-server %s exited: %s", addr, out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server %s: no PONG within 10 s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCluster runs the store on a three-master Redis Cluster, each Store
// on a *redis.ClusterClient of its own: session records, the event store
// step by step against MemoryEventStore (a session's keys share a hash
// slot, so its scripts run), the relay for sessions whose channels hash
// to every node, and the two instances of TestTwoInstances.
func TestCluster(t *testing.T) {
	addrs := startCluster(t)
	newClusterStore := func(t *testing.T, opts *redisstore.Options) (*redisstore.Store, *redis.ClusterClient) {
		t.Helper()
		c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
		t.Cleanup(func() { _ = c.Close() })
		s := redisstore.New(c, opts)
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
		return s, c
	}

	t.Run("sessions", func(t *testing.T) {
		ctx := ctx5(t)
		a, c := newClusterStore(t, nil)
		b, _ := newClusterStore(t, nil)
		for i := range 20 { // ids spread over the slots
			rec := &httptransport.SessionRecord{ID: fmt.Sprint("s", i), Owner: "iss\x00sub", Version: "2025-11-25", State: []byte(`{"n":1}`)}
			if err := a.Put(ctx, rec, time.Minute); err != nil {
				t.Fatal(err)
			}
			got, err := b.Get(ctx, rec.ID)
			if err != nil || !reflect.DeepEqual(got, rec) {
				t.Fatalf("Get(%s) = %+v, %v", rec.ID, got, err)
			}
			if err := b.Touch(ctx, rec.ID, time.Hour); err != nil {
				t.Fatal(err)
			}
			if ttl := c.PTTL(ctx, "mcp:session:"+rec.ID).Val(); ttl <= time.Minute {
				t.Errorf("PTTL after Touch = %v", ttl)
			}
			if err := b.Delete(ctx, rec.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Get(ctx, rec.ID); !errors.Is(err, httptransport.ErrNoSession) {
				t.Errorf("Get after Delete = %v", err)
			}
		}
		nodes := map[string]bool{}
		for i := range 20 {
			node, err := c.MasterForKey(ctx, "mcp:session:"+fmt.Sprint("s", i))
			if err != nil {
				t.Fatal(err)
			}
			nodes[node.Options().Addr] = true
		}
		if len(nodes) != clusterNodes {
			t.Errorf("the session keys fell on %d of the %d nodes", len(nodes), clusterNodes)
		}
	})

	t.Run("events", func(t *testing.T) {
		s, _ := newClusterStore(t, &redisstore.Options{MaxBytesPerSession: scriptBound, Prefix: "ev:"})
		checkEventsLikeMemory(t, s)
	})

	t.Run("batch", func(t *testing.T) { // a batch's sessions hash to every node
		s, _ := newClusterStore(t, &redisstore.Options{MaxBytesPerSession: scriptBound, Prefix: "batch:"})
		checkBatchLikeAppends(t, s, "c")
	})

	t.Run("relay", func(t *testing.T) {
		ctx := ctx5(t)
		pub, _ := newClusterStore(t, nil)
		sub, _ := newClusterStore(t, nil)
		inboxes := make([]*inbox, 12)
		for i := range inboxes {
			inboxes[i] = newInbox()
			unsub, err := sub.Subscribe(ctx, fmt.Sprint("r", i), inboxes[i].deliver)
			if err != nil {
				t.Fatal(err)
			}
			defer unsub()
		}
		for i := range inboxes {
			if err := pub.Publish(ctx, fmt.Sprint("r", i), []byte(fmt.Sprint("m", i))); err != nil {
				t.Fatal(err)
			}
		}
		for i, in := range inboxes {
			if got := in.next(t); got != fmt.Sprint("m", i) {
				t.Errorf("session r%d got %q", i, got)
			}
		}
	})

	t.Run("two instances", func(t *testing.T) {
		one, _ := newClusterStore(t, &redisstore.Options{Prefix: "e2e:"})
		two, _ := newClusterStore(t, &redisstore.Options{Prefix: "e2e:"})
		insts, cs := connectRoamer(t, []*instance{startInstanceOn(t, "one", true, one), startInstanceOn(t, "two", true, two)})
		checkTwoInstances(t, insts, cs)
	})
}
