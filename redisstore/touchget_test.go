package redisstore_test

import (
	"errors"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
	"github.com/mcpmount/mcpmount/redisstore"
)

// TestTouchGet: TouchGet returns the record as Get does and extends its
// life as Touch does (PERSIST for ttl <= 0); a missing record is
// ErrNoSession.
func TestTouchGet(t *testing.T) {
	ctx := ctx5(t)
	s, c := newStore(t, nil)
	rec := &httptransport.SessionRecord{ID: "s1", Owner: "o", Version: "2025-11-25", State: []byte(`{"logLevel":"debug"}`)}
	if err := s.Put(ctx, rec, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	got, err := s.TouchGet(ctx, "s1", time.Minute)
	if err != nil || got.Owner != "o" || string(got.State) != string(rec.State) {
		t.Fatalf("TouchGet = %+v, %v; want the record", got, err)
	}
	if ttl := c.PTTL(ctx, testPrefix(t)+"session:s1").Val(); ttl < 30*time.Second {
		t.Errorf("TTL after TouchGet(1m): %v", ttl)
	}
	if _, err := s.TouchGet(ctx, "s1", 0); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, testPrefix(t)+"session:s1").Val(); ttl != -1 {
		t.Errorf("TTL after TouchGet(0): %v, want none (-1)", ttl)
	}
	// A record changed by another instance reads as changed, however often
	// the old one was read before.
	rec.State = []byte(`{"logLevel":"error"}`)
	if err := s.Put(ctx, rec, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got, err := s.TouchGet(ctx, "s1", time.Minute); err != nil || string(got.State) != string(rec.State) {
		t.Errorf("TouchGet after a change = %+v, %v; want the new state", got, err)
	}
	if _, err := s.TouchGet(ctx, "never", time.Minute); !errors.Is(err, httptransport.ErrNoSession) {
		t.Errorf("TouchGet of a missing record: %v, want ErrNoSession", err)
	}
}

// TestDecodedForgottenOnExpiry: a record TouchGet decoded is not kept once
// the record has expired and Get or Touch found it gone (the janitor's
// look at an idle session). Each expired session's decoded record once
// stayed until 4,096 had piled up.
func TestDecodedForgottenOnExpiry(t *testing.T) {
	ctx := ctx5(t)
	s, c := newStore(t, nil)
	for _, miss := range []func(id string) error{
		func(id string) error { _, err := s.Get(ctx, id); return err },
		func(id string) error { return s.Touch(ctx, id, time.Minute) },
	} {
		rec := &httptransport.SessionRecord{ID: "s1", Owner: "o", Version: "2025-11-25", State: []byte(`{}`)}
		if err := s.Put(ctx, rec, time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TouchGet(ctx, "s1", time.Minute); err != nil {
			t.Fatal(err)
		}
		c.Del(ctx, testPrefix(t)+"session:s1") // as if it expired
		if err := miss("s1"); !errors.Is(err, httptransport.ErrNoSession) {
			t.Fatalf("the expired record: %v, want ErrNoSession", err)
		}
		if n := redisstore.DecodedLen(s); n != 0 {
			t.Errorf("%d records kept decoded after the record was found gone, want 0", n)
		}
	}
}
