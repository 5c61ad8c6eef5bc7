package httptransport

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// sessionBound bounds the sessions this instance serves, so that a client
// looping initialize (or GETs opening 2024-11-05 sessions) cannot grow the
// process without end (Options.MaxSessions, MaxSessionsPerAddress). Each
// session holds one place in the instance's pool from its admission until
// it ends here; a session of an unauthenticated caller holds one in its
// client address's pool too.
//
// At a bound, the pool's session idle the longest (nothing in flight, no
// stream attached) is ended as the idle timeout would end it, and the new
// one takes its place; when none is idle, the handshake pending the
// longest is ended (handshakes); when none is pending either, the request
// is refused with 503 and Retry-After. So a flood from one address churns only that address's
// own sessions, and sessions in use are never taken.
type sessionBound struct {
	max, perAddr int // 0: no bound

	mu     sync.Mutex
	n      int
	byAddr map[string]int
}

func newSessionBound(max, perAddr int) *sessionBound {
	return &sessionBound{max: max, perAddr: perAddr, byAddr: make(map[string]int)}
}

// take reserves a place for a session of addr ("" counts in the instance's
// pool only). full names the pool that had no room: "" when it took one,
// else "instance" or "address".
func (b *sessionBound) take(addr string) (full string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.max > 0 && b.n >= b.max:
		return "instance"
	case addr != "" && b.perAddr > 0 && b.byAddr[addr] >= b.perAddr:
		return "address"
	}
	b.n++
	if addr != "" {
		b.byAddr[addr]++
	}
	return ""
}

// count is the number of places taken.
func (b *sessionBound) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

// give returns a place taken for addr.
func (b *sessionBound) give(addr string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n--
	if addr == "" {
		return
	}
	if b.byAddr[addr]--; b.byAddr[addr] <= 0 {
		delete(b.byAddr, addr)
	}
}

// evictionTries bounds how often admitSession ends an idle session to make
// room before it refuses: others admitted meanwhile may take the room.
const evictionTries = 8

// sessionAddr is the address pool a session created by r counts in: its
// client address for an unauthenticated caller when
// Options.MaxSessionsPerAddress bounds it, else "" (the instance's pool
// only).
func (h *Handler) sessionAddr(r *http.Request, owner string) string {
	if owner != "" || h.bound.perAddr <= 0 {
		return ""
	}
	return h.clientAddr(r)
}

// admitSession takes a place for a new session in the instance's pool and
// in addr's (sessionAddr). It returns what gives the places back, once
// however often it is called, or nil when there was no room, after ending
// the longest idle session of the full pool as many times as
// evictionTries allows.
func (h *Handler) admitSession(ctx context.Context, addr string) (release func()) {
	full := ""
	for range evictionTries {
		if full = h.bound.take(addr); full == "" {
			var once sync.Once
			return func() { once.Do(func() { h.bound.give(addr) }) }
		}
		if victim := h.longestIdle(full == "address", addr); victim != nil {
			h.evict(ctx, victim)
			continue
		}
		hs := h.handshakes.oldest(full == "address", addr)
		if hs == nil {
			break
		}
		hs.evict(ctx)
	}
	h.warnLimited(&h.boundWarned, "mcp: refusing a session: no idle session to make room for it",
		"pool", full, "sessions", h.bound.count())
	return nil
}

// longestIdle picks the session idle the longest in the instance's pool,
// or in addr's pool when byAddr is set, and claims it for eviction, so that
// requests making room at once pick one each; nil when none is idle.
func (h *Handler) longestIdle(byAddr bool, addr string) *liveSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	var oldest *liveSession
	var since time.Time
	for _, ls := range h.live {
		if byAddr && ls.addr != addr {
			continue
		}
		ls.mu.Lock()
		idle, used := ls.active == 0 && ls.users == 0 && !ls.ended && !ls.evicting, ls.lastUsed
		ls.mu.Unlock()
		if idle && (oldest == nil || used.Before(since)) {
			oldest, since = ls, used
		}
	}
	if oldest != nil {
		oldest.mu.Lock()
		oldest.evicting = true
		oldest.mu.Unlock()
	}
	return oldest
}

// evict ends an idle session that longestIdle claimed, to make room for
// another, as the idle timeout would (janitor.go): its record and events go
// with it, except in a shared store, where another instance may go on
// serving it. A session that was taken up meanwhile is left as it is.
func (h *Handler) evict(ctx context.Context, ls *liveSession) {
	forget := !h.cfg.sharedSessions || ls.sess.Legacy
	stillIdle := func() bool {
		ls.evicting = ls.active == 0 && ls.users == 0
		return ls.evicting
	}
	h.withStore(context.WithoutCancel(ctx), func(ctx context.Context) {
		if ls.endIf(ctx, forget, stillIdle) {
			h.cfg.logger.Debug("mcp: idle session ended to make room for another", "session", logval.String(ls.id))
		}
	})
}

// clientAddr is the address a session of an unauthenticated caller is
// counted under (Options.MaxSessionsPerAddress): the connection's peer, or,
// when the peer is a trusted proxy (Options.TrustedProxies), the nearest
// address in X-Forwarded-For that is not one. IPv6 addresses count by
// their /64, which one host usually holds whole.
func (h *Handler) clientAddr(r *http.Request) string {
	ip := peerIP(r.RemoteAddr)
	if ip.IsValid() && h.trusted(ip) {
		ip = h.forwardedFor(r, ip)
	}
	if !ip.IsValid() {
		return r.RemoteAddr
	}
	if ip.Is6() && !ip.Is4In6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.Unmap().String()
}

// forwardedFor walks X-Forwarded-For from the right (the entry the nearest
// proxy added) past the trusted proxies, and returns the first address that
// is not one; peer when there is none. Every X-Forwarded-For field counts,
// in order (RFC 9110 section 5.3).
func (h *Handler) forwardedFor(r *http.Request, peer netip.Addr) netip.Addr {
	fields := r.Header.Values("X-Forwarded-For")
	for i := len(fields) - 1; i >= 0; i-- {
		parts := strings.Split(fields[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			ip, ok := forwardedAddr(strings.TrimSpace(parts[j]))
			if !ok {
				return peer // a forged or broken entry: trust nothing left of it
			}
			if !h.trusted(ip) {
				return ip
			}
			peer = ip
		}
	}
	return peer
}

// forwardedAddr reads one X-Forwarded-For entry: an address, as most
// proxies write it, or an address with a port ("203.0.113.7:41236",
// "[2001:db8::1]:4711") or in brackets ("[2001:db8::1]"), as some write it
// (and as RFC 7239 section 6 writes node names).
func forwardedAddr(s string) (netip.Addr, bool) {
	if ip, err := netip.ParseAddr(s); err == nil {
		return ip, true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr(), true
	}
	if inner, ok := strings.CutPrefix(s, "["); ok {
		if inner, ok = strings.CutSuffix(inner, "]"); ok {
			ip, err := netip.ParseAddr(inner)
			return ip, err == nil
		}
	}
	return netip.Addr{}, false
}

// trusted reports whether ip is one of Options.TrustedProxies.
func (h *Handler) trusted(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range h.cfg.trustedProxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// peerIP parses the host of a RemoteAddr.
func peerIP(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, _ := netip.ParseAddr(host)
	return ip
}

// parseTrustedProxies reads Options.TrustedProxies: CIDR prefixes or
// single addresses. Entries that are neither are returned in bad.
func parseTrustedProxies(list []string) (prefixes []netip.Prefix, bad []string) {
	for _, s := range list {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil {
			prefixes = append(prefixes, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(s); err == nil {
			ip = ip.Unmap()
			prefixes = append(prefixes, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		bad = append(bad, s)
	}
	return prefixes, bad
}

// warnLimited logs msg at most once a minute for the clock last keeps (a
// flood refused by a bound would otherwise write a line per request).
func (h *Handler) warnLimited(last *atomic.Int64, msg string, args ...any) {
	now := int64(time.Since(h.created))
	prev := last.Load()
	if prev != 0 && now-prev < int64(time.Minute) || !last.CompareAndSwap(prev, now) {
		return
	}
	h.cfg.logger.Warn(msg, args...)
}
