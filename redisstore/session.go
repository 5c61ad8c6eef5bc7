package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/httptransport"
)

// Put implements httptransport.SessionStore: SET of the record as JSON,
// expiring after ttl (never when ttl <= 0).
func (s *Store) Put(ctx context.Context, rec *httptransport.SessionRecord, ttl time.Duration) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("redisstore: encoding session %s: %w", rec.ID, err)
	}
	if ttl < 0 {
		ttl = 0 // go-redis reads -1 as KEEPTTL
	}
	if err := s.client.Set(ctx, s.sessionKey(rec.ID), data, ttl).Err(); err != nil {
		return fmt.Errorf("redisstore: saving session %s: %w", rec.ID, err)
	}
	return nil
}

// Get implements httptransport.SessionStore; a missing or expired record
// is httptransport.ErrNoSession.
func (s *Store) Get(ctx context.Context, id string) (*httptransport.SessionRecord, error) {
	data, err := s.client.Get(ctx, s.sessionKey(id)).Bytes()
	if errors.Is(err, redis.Nil) {
		s.decoded.forget(id) // expired: the janitor is looking at its last copy
		return nil, httptransport.ErrNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: reading session %s: %w", id, err)
	}
	rec := new(httptransport.SessionRecord)
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, fmt.Errorf("redisstore: decoding session %s: %w", id, err)
	}
	return rec, nil
}

// Touch implements httptransport.SessionStore: PEXPIRE, or PERSIST when
// ttl <= 0; a missing or expired record is httptransport.ErrNoSession.
func (s *Store) Touch(ctx context.Context, id string, ttl time.Duration) error {
	key := s.sessionKey(id)
	var found bool
	if ttl > 0 {
		ok, err := s.client.PExpire(ctx, key, ttl).Result()
		if err != nil {
			return fmt.Errorf("redisstore: touching session %s: %w", id, err)
		}
		found = ok
	} else {
		// PERSIST answers 0 for a record without expiry too: ask whether
		// the record exists in the same transaction.
		var exists *redis.IntCmd
		_, err := s.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			exists = p.Exists(ctx, key)
			p.Persist(ctx, key)
			return nil
		})
		if err != nil {
			return fmt.Errorf("redisstore: touching session %s: %w", id, err)
		}
		found = exists.Val() == 1
	}
	if !found {
		s.decoded.forget(id)
		return httptransport.ErrNoSession
	}
	return nil
}

// TouchGet implements httptransport.SessionRefresher: GETEX with PX, or
// PERSIST when ttl <= 0 (Redis 6.2 or later), one round trip for what an
// instance serving a shared session reads at each of its requests.
func (s *Store) TouchGet(ctx context.Context, id string, ttl time.Duration) (*httptransport.SessionRecord, error) {
	if ttl < 0 {
		ttl = 0 // go-redis reads 0 as PERSIST, -1 as keep the TTL
	}
	data, err := s.client.GetEx(ctx, s.sessionKey(id), ttl).Bytes()
	if errors.Is(err, redis.Nil) {
		s.decoded.forget(id)
		return nil, httptransport.ErrNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: reading session %s: %w", id, err)
	}
	rec, err := s.decoded.decode(id, data)
	if err != nil {
		return nil, fmt.Errorf("redisstore: decoding session %s: %w", id, err)
	}
	return rec, nil
}

// Delete implements httptransport.SessionStore: DEL.
func (s *Store) Delete(ctx context.Context, id string) error {
	s.decoded.forget(id)
	if err := s.client.Del(ctx, s.sessionKey(id)).Err(); err != nil {
		return fmt.Errorf("redisstore: deleting session %s: %w", id, err)
	}
	return nil
}
