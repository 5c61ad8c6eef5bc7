package redisstore_test

import (
	"testing"
	"time"
)

// TestLiveness: an instance's renewed liveness record is alive for every
// Store under the prefix, for the ttl of its last renewal; one never
// renewed, or whose record is gone, is not.
func TestLiveness(t *testing.T) {
	ctx := ctx5(t)
	a, c := newStore(t, nil)
	b, _ := newStore(t, nil)
	key := testPrefix(t) + "instance:ABCDEF"
	if err := a.Renew(ctx, "ABCDEF", time.Minute); err != nil {
		t.Fatal(err)
	}
	if alive, err := b.Alive(ctx, "ABCDEF"); err != nil || !alive {
		t.Fatalf("Alive after Renew = %v, %v; want true", alive, err)
	}
	if ttl := c.PTTL(ctx, key).Val(); ttl <= 0 || ttl > time.Minute {
		t.Errorf("PTTL = %v, want (0, 1m]", ttl)
	}
	if err := a.Renew(ctx, "ABCDEF", time.Hour); err != nil {
		t.Fatal(err)
	}
	if ttl := c.PTTL(ctx, key).Val(); ttl <= time.Minute {
		t.Errorf("PTTL after renewing for an hour = %v", ttl)
	}
	if alive, err := b.Alive(ctx, "GHIJKL"); err != nil || alive {
		t.Errorf("Alive of an instance never renewed = %v, %v; want false", alive, err)
	}
	c.Del(ctx, key) // as when it expires
	if alive, err := b.Alive(ctx, "ABCDEF"); err != nil || alive {
		t.Errorf("Alive once the record is gone = %v, %v; want false", alive, err)
	}
}
