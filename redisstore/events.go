package redisstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"github.com/mcpmount/mcpmount/httptransport"
)

// eventOverhead is what an event counts beside its data against
// Options.MaxBytesPerSession, as in httptransport.MemoryEventStore: its
// entry in the session's order and its share of its stream's bookkeeping,
// so that a session of many short events stays bounded.
const eventOverhead = 128

// appendScript appends one event to a stream, then drops the session's
// oldest events while it holds more than its bound, keeping the newest.
// A session's events key (KEYS[1], a hash) holds each stream's first kept
// index and, under the empty field, the bytes counted; its order (KEYS[2],
// a list) holds "<size> <index> <stream>" per event, oldest first. The
// keys of streams other than the one appended to are made from ARGV[6]
// (in the same hash slot). A stream whose list expired, or whose events
// were all dropped, starts again at the index given; the entries in the
// order of its earlier events are skipped when their turn comes.
var appendScript = redis.NewScript(`
local index = tonumber(ARGV[2])
local n = redis.call('LLEN', KEYS[3])
local first = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
if n == 0 or first == nil then
  redis.call('DEL', KEYS[3])
  first = index
  redis.call('HSET', KEYS[1], ARGV[1], first)
elseif index ~= first + n then
  return redis.error_reply('event index ' .. index .. ' out of order, want ' .. (first + n))
end
redis.call('RPUSH', KEYS[3], ARGV[3])
local size = string.len(ARGV[3])
local overhead = tonumber(ARGV[5])
redis.call('RPUSH', KEYS[2], size .. ' ' .. index .. ' ' .. ARGV[1])
local bytes = redis.call('HINCRBY', KEYS[1], '', size + overhead)
local max = tonumber(ARGV[4])
while bytes > max and redis.call('LLEN', KEYS[2]) > 1 do
  local e = redis.call('LPOP', KEYS[2])
  local sz, idx, st = string.match(e, '^(%d+) (%d+) (.*)$')
  bytes = redis.call('HINCRBY', KEYS[1], '', -(tonumber(sz) + overhead))
  if tonumber(redis.call('HGET', KEYS[1], st)) == tonumber(idx) then
    local list = ARGV[6] .. st
    redis.call('LPOP', list)
    if redis.call('LLEN', list) == 0 then
      redis.call('HDEL', KEYS[1], st)
    else
      redis.call('HINCRBY', KEYS[1], st, 1)
    end
  end
end
local ttl = tonumber(ARGV[7])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('PEXPIRE', KEYS[3], ttl)
end
return 0
`)

// afterScript returns the events of a stream after ARGV[2], or nil if it
// does not hold all of them.
var afterScript = redis.NewScript(`
local first = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
if first == nil then
  return false
end
local n = redis.call('LLEN', KEYS[2])
local index = tonumber(ARGV[2])
if n == 0 or index < first - 1 or index > first + n - 1 then
  return false
end
return redis.call('LRANGE', KEYS[2], index - first + 1, -1)
`)

// closeScript deletes a session's events: each stream named in its
// events key, the key and the order.
var closeScript = redis.NewScript(`
for _, st in ipairs(redis.call('HKEYS', KEYS[1])) do
  if st ~= '' then
    redis.call('DEL', ARGV[1] .. st)
  end
end
redis.call('DEL', KEYS[1], KEYS[2])
return 0
`)

// Append implements httptransport.EventStore. An event's index must follow
// its stream's last kept one, unless the stream has none kept. A priming
// event (nil data) is kept as an empty string, and After returns it as
// nil.
func (s *Store) Append(ctx context.Context, session, stream string, index int, data []byte) error {
	keys, args, err := s.appendArgs(httptransport.EventAppend{Session: session, Stream: stream, Index: index, Data: data})
	if err != nil {
		return err
	}
	return appendErr(session, stream, index, appendScript.Run(ctx, s.client, keys, args...).Err())
}

// AppendBatch implements httptransport.BatchEventStore: the events are
// appended as Append would, in one pipeline (on Redis Cluster, one per
// node their sessions hash to).
func (s *Store) AppendBatch(ctx context.Context, events []httptransport.EventAppend) []error {
	errs := make([]error, len(events))
	cmds := make([]*redis.Cmd, len(events))
	pipe := s.client.Pipeline()
	for i, e := range events {
		keys, args, err := s.appendArgs(e)
		if err != nil {
			errs[i] = err
			continue
		}
		cmds[i] = appendScript.EvalSha(ctx, pipe, keys, args...)
	}
	_, _ = pipe.Exec(ctx) // each command's error is its own
	// A Redis that lost its scripts (restarted, SCRIPT FLUSH) gets the
	// script's source with the events it refused, in order.
	var again redis.Pipeliner
	for i, c := range cmds {
		if c != nil && redis.HasErrorPrefix(c.Err(), "NOSCRIPT") {
			if again == nil {
				again = s.client.Pipeline()
			}
			keys, args, _ := s.appendArgs(events[i])
			cmds[i] = appendScript.Eval(ctx, again, keys, args...)
		}
	}
	if again != nil {
		_, _ = again.Exec(ctx)
	}
	var failed bool
	for i, c := range cmds {
		if c != nil {
			e := events[i]
			errs[i] = appendErr(e.Session, e.Stream, e.Index, c.Err())
		}
		failed = failed || errs[i] != nil
	}
	if !failed {
		return nil
	}
	return errs
}

// appendArgs checks an event and returns the keys and arguments of its
// appendScript.
func (s *Store) appendArgs(e httptransport.EventAppend) ([]string, []any, error) {
	if e.Stream == "" {
		return nil, nil, errors.New("redisstore: empty stream id")
	}
	if e.Index < 1 {
		// The script's bookkeeping reads indexes as digits only: a
		// negative one would fail it halfway, with some of its writes done.
		return nil, nil, fmt.Errorf("redisstore: event index %d of stream %s: indexes count from 1", e.Index, e.Stream)
	}
	key := s.eventsKey(e.Session)
	return []string{key, key + "#", key + ":" + e.Stream},
		[]any{e.Stream, e.Index, e.Data, s.maxBytes, eventOverhead, key + ":", s.eventTTL.Milliseconds()}, nil
}

// appendErr wraps the error of an event's append, if any.
func appendErr(session, stream string, index int, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("redisstore: appending event %s_%d of session %s: %w", stream, index, session, err)
}

// After implements httptransport.EventStore: httptransport.ErrEventsGone
// when the store does not hold every event of the stream after index,
// and for a stream or session it does not know.
func (s *Store) After(ctx context.Context, session, stream string, index int) ([][]byte, error) {
	if index < 0 {
		return nil, httptransport.ErrEventsGone
	}
	key := s.eventsKey(session)
	vals, err := afterScript.Run(ctx, s.client, []string{key, key + ":" + stream}, stream, index).StringSlice()
	if errors.Is(err, redis.Nil) {
		return nil, httptransport.ErrEventsGone
	}
	if err != nil {
		return nil, fmt.Errorf("redisstore: reading events of stream %s of session %s: %w", stream, session, err)
	}
	var events [][]byte
	for _, v := range vals {
		var data []byte
		if v != "" {
			data = []byte(v)
		}
		events = append(events, data)
	}
	return events, nil
}

// SessionClosed implements httptransport.EventStore: it deletes the
// session's streams and bookkeeping.
func (s *Store) SessionClosed(ctx context.Context, session string) error {
	key := s.eventsKey(session)
	if err := closeScript.Run(ctx, s.client, []string{key, key + "#"}, key+":").Err(); err != nil {
		return fmt.Errorf("redisstore: forgetting the events of session %s: %w", session, err)
	}
	return nil
}
