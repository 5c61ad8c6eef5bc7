package auth

import (
	"fmt"
	"slices"
)

// OfflineAccess is the scope that the 2026-07-28 MCP authorization spec
// says SHOULD NOT appear in challenges or in scopes_supported. Options and
// ProtectedResourceMetadata refuse it.
const OfflineAccess = "offline_access"

// ScopeMatcher reports whether the granted scopes satisfy one required
// scope. Install one through Options.MatchScope to honour scope hierarchies
// (for example "files" implying "files:read").
type ScopeMatcher func(granted []string, required string) bool

// ExactScopeMatch is the default ScopeMatcher: required must be one of
// granted, compared byte for byte.
func ExactScopeMatch(granted []string, required string) bool {
	return slices.Contains(granted, required)
}

// uniqueScopes returns scopes without duplicates, keeping the first
// occurrence of each, or nil when there are none.
func uniqueScopes(scopes []string) []string {
	if len(scopes) == 0 {
		return nil
	}
	seen := make(map[string]struct{}, len(scopes))
	out := make([]string, 0, len(scopes))
	for _, s := range scopes {
		if _, dup := seen[s]; dup {
			continue
		}
		seen[s] = struct{}{}
		out = append(out, s)
	}
	return out
}

// checkScopeToken validates one scope value against RFC 6749 section 3.3
// (scope-token = 1*( %x21 / %x23-5B / %x5D-7E )), which also keeps it safe
// inside a quoted WWW-Authenticate parameter, and refuses offline_access.
func checkScopeToken(s string) error {
	if s == "" {
		return fmt.Errorf("empty scope")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c == '"' || c == '\\' || c > 0x7e {
			return fmt.Errorf("scope %q contains a character that RFC 6749 forbids", s)
		}
	}
	if s == OfflineAccess {
		return fmt.Errorf("scope %q should not be advertised (MCP 2026-07-28)", s)
	}
	return nil
}

// checkScopes validates every scope in list.
func checkScopes(list []string) error {
	for _, s := range list {
		if err := checkScopeToken(s); err != nil {
			return err
		}
	}
	return nil
}
