package redisstore

import (
	"context"
	"fmt"
	"time"
)

// instanceKey is the key of an instance's liveness record.
func (s *Store) instanceKey(instance string) string { return s.prefix + "instance:" + instance }

// Renew implements httptransport.Liveness: SET of the instance's record,
// expiring after ttl (at least a millisecond: Redis counts in them).
func (s *Store) Renew(ctx context.Context, instance string, ttl time.Duration) error {
	if err := s.client.Set(ctx, s.instanceKey(instance), "1", max(ttl, time.Millisecond)).Err(); err != nil {
		return fmt.Errorf("redisstore: renewing the liveness record of instance %s: %w", instance, err)
	}
	return nil
}

// Alive implements httptransport.Liveness: EXISTS of the instance's
// record.
func (s *Store) Alive(ctx context.Context, instance string) (bool, error) {
	n, err := s.client.Exists(ctx, s.instanceKey(instance)).Result()
	if err != nil {
		return false, fmt.Errorf("redisstore: reading the liveness record of instance %s: %w", instance, err)
	}
	return n == 1, nil
}
