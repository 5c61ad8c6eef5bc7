package redisstore

import "time"

// SetPingEvery sets how long s's relay connection may stay silent before
// it is pinged, and then how long the ping has to bring something back.
// Call it before s's first Subscribe.
func SetPingEvery(s *Store, d time.Duration) {
	s.relay.mu.Lock()
	defer s.relay.mu.Unlock()
	s.relay.pingEvery = d
}

// DecodedLen is how many records s keeps decoded.
func DecodedLen(s *Store) int {
	s.decoded.mu.Lock()
	defer s.decoded.mu.Unlock()
	return len(s.decoded.recs)
}
