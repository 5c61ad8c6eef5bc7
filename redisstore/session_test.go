package redisstore_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/httptransport"
)

// TestSessionRoundTrip: a record Put comes back whole from Get, on another
// Store too; an unknown id is ErrNoSession.
func TestSessionRoundTrip(t *testing.T) {
	ctx := ctx5(t)
	a, c := newStore(t, nil)
	b, _ := newStore(t, nil)
	rec := &httptransport.SessionRecord{ID: "s1", Owner: "iss\x00sub", Version: "2025-11-25", State: json.RawMessage(`{"level":"info"}`)}
	if err := a.Put(ctx, rec, time.Minute); err != nil {
		t.Fatal(err)
	}
	got, err := b.Get(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Errorf("Get = %+v, want %+v", got, rec)
	}
	if ttl := c.PTTL(ctx, testPrefix(t)+"session:s1").Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("PTTL = %v, want (0, 1m]", ttl)
	}
	if _, err := b.Get(ctx, "nope"); !errors.Is(err, httptransport.ErrNoSession) {
		t.Errorf("Get(unknown) = %v, want ErrNoSession", err)
	}
}

// TestSessionExpiry: a record expires after its ttl, Touch extends it, and
// a ttl <= 0 (Put or Touch) leaves it without expiry.
func TestSessionExpiry(t *testing.T) {
	ctx := ctx5(t)
	s, c := newStore(t, nil)
	key := testPrefix(t) + "session:"
	if err := s.Put(ctx, &httptransport.SessionRecord{ID: "short"}, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, &httptransport.SessionRecord{ID: "touched"}, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "short"); err != nil {
		t.Fatalf("Get before expiry: %v", err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := s.Get(ctx, "short"); !errors.Is(err, httptransport.ErrNoSession) {
		t.Errorf("Get after expiry = %v, want ErrNoSession", err)
	}
	if err := s.Touch(ctx, "touched", time.Second); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // past the Put's 300 ms
	if _, err := s.Get(ctx, "touched"); err != nil {
		t.Errorf("Get after Touch: %v", err)
	}

	if err := s.Put(ctx, &httptransport.SessionRecord{ID: "forever"}, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, &httptransport.SessionRecord{ID: "negative"}, -time.Second); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"forever", "negative"} {
		if ttl := c.PTTL(ctx, key+id).Val(); ttl != -1 {
			t.Errorf("%s: PTTL = %v, want -1 (no expiry)", id, ttl)
		}
	}
	if err := s.Touch(ctx, "touched", 0); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, key+"touched").Val(); ttl != -1 {
		t.Errorf("after Touch(0): PTTL = %v, want -1", ttl)
	}
	// PERSIST answers 0 for a key without expiry: Touch must not take
	// that for a missing record.
	if err := s.Touch(ctx, "forever", 0); err != nil {
		t.Errorf("Touch(0) of a record without expiry: %v", err)
	}
	if err := s.Touch(ctx, "forever", time.Minute); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, key+"forever").Val(); ttl <= 0 {
		t.Errorf("after Touch(1m): PTTL = %v", ttl)
	}
}

// TestTouchGone: Touch of a record never stored, expired or deleted is
// ErrNoSession, whatever the ttl, and creates nothing.
func TestTouchGone(t *testing.T) {
	ctx := ctx5(t)
	s, c := newStore(t, nil)
	if err := s.Put(ctx, &httptransport.SessionRecord{ID: "expired"}, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, &httptransport.SessionRecord{ID: "deleted"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "deleted"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	for _, id := range []string{"never", "expired", "deleted"} {
		for _, ttl := range []time.Duration{time.Minute, 0, -1} {
			if err := s.Touch(ctx, id, ttl); !errors.Is(err, httptransport.ErrNoSession) {
				t.Errorf("Touch(%s, %v) = %v, want ErrNoSession", id, ttl, err)
			}
		}
	}
	if ks := keys(t, c, testPrefix(t)); len(ks) != 0 {
		t.Errorf("keys left: %v", ks)
	}
}

// TestDelete: a deleted record is gone everywhere; deleting a missing one
// is not an error.
func TestDelete(t *testing.T) {
	ctx := ctx5(t)
	a, _ := newStore(t, nil)
	b, _ := newStore(t, nil)
	if err := a.Put(ctx, &httptransport.SessionRecord{ID: "d"}, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, "d"); !errors.Is(err, httptransport.ErrNoSession) {
		t.Errorf("Get after Delete = %v", err)
	}
	if err := a.Delete(ctx, "d"); err != nil {
		t.Errorf("Delete of a missing record: %v", err)
	}
}

// TestStoreErrors: a call on a closed client is an error naming the
// store, not ErrNoSession.
func TestStoreErrors(t *testing.T) {
	ctx := ctx5(t)
	s, c := newStore(t, nil)
	_ = c.Close()
	if _, err := s.Get(ctx, "x"); err == nil || errors.Is(err, httptransport.ErrNoSession) {
		t.Errorf("Get on a closed client = %v", err)
	}
	if err := s.Touch(ctx, "x", time.Minute); err == nil || errors.Is(err, httptransport.ErrNoSession) {
		t.Errorf("Touch on a closed client = %v", err)
	}
}
