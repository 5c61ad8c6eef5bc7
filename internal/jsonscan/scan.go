// Package jsonscan walks JSON without reflection or allocation, for the hot
// paths of the transport: reading a JSON-RPC envelope and the few params
// fields the transport validates, and writing messages.
//
// It is deliberately conservative: it accepts a subset of what
// encoding/json accepts, never more, so callers can take its answer on the
// fast path and fall back to encoding/json, for the exact result or error,
// whenever it says no.
package jsonscan

// maxDepth bounds nesting; deeper input is left to encoding/json.
const maxDepth = 256

// SkipSpace returns the index of the first non-whitespace byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// String scans the string starting at b[i] (a quote) and returns the index
// after its closing quote, and whether it has no escape sequence. ok is
// false for anything but a valid string.
func String(b []byte, i int) (end int, simple, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return 0, false, false
	}
	simple = true
	for i++; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, simple, true
		case c == '\\':
			simple = false
			i++
			if i >= len(b) {
				return 0, false, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return 0, false, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				i += 4
			default:
				return 0, false, false
			}
		case c < 0x20:
			return 0, false, false
		}
	}
	return 0, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number scans a number at b[i]: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func number(b []byte, i int) (int, bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return 0, false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return 0, false
		}
		for i++; i < len(b) && isDigit(b[i]); i++ {
		}
	}
	return i, true
}

func literal(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// Value scans the value starting at b[i] (no leading whitespace) and
// returns the index just after it.
func Value(b []byte, i int) (end int, ok bool) { return value(b, i, 0) }

func value(b []byte, i, depth int) (int, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok := String(b, i)
		return end, ok
	case c == '{':
		if depth >= maxDepth {
			return 0, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			end, _, ok := String(b, i)
			if !ok {
				return 0, false
			}
			i = SkipSpace(b, end)
			if i >= len(b) || b[i] != ':' {
				return 0, false
			}
			if i, ok = value(b, SkipSpace(b, i+1), depth+1); !ok {
				return 0, false
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			if b[i] == '}' {
				return i + 1, true
			}
			if b[i] != ',' {
				return 0, false
			}
			i = SkipSpace(b, i+1)
		}
	case c == '[':
		if depth >= maxDepth {
			return 0, false
		}
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = value(b, i, depth+1); !ok {
				return 0, false
			}
			i = SkipSpace(b, i)
			if i >= len(b) {
				return 0, false
			}
			if b[i] == ']' {
				return i + 1, true
			}
			if b[i] != ',' {
				return 0, false
			}
			i = SkipSpace(b, i+1)
		}
	case c == '-' || isDigit(c):
		return number(b, i)
	case c == 't':
		return literal(b, i, "true")
	case c == 'f':
		return literal(b, i, "false")
	case c == 'n':
		return literal(b, i, "null")
	}
	return 0, false
}

// DeeperThan reports whether b, read as JSON text, nests objects and arrays
// more than max levels deep. It counts brackets outside strings in one pass
// and does not validate: malformed input gets an answer, which its decoder
// then refuses or not.
func DeeperThan(b []byte, max int) bool {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++ // the escaped byte cannot end the string
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > max {
				return true
			}
		case '}', ']':
			depth--
		}
	}
	return false
}

// Valid reports whether b is exactly one JSON value, with optional
// surrounding whitespace.
func Valid(b []byte) bool {
	end, ok := Value(b, SkipSpace(b, 0))
	return ok && SkipSpace(b, end) == len(b)
}

// Object calls fn for each member of the object b (exactly one JSON object,
// with optional surrounding whitespace): key is the raw key without its
// quotes, value the member's raw value. It returns false, having stopped,
// if b is not a valid object, a key holds an escape sequence (whose
// meaning only encoding/json should decide), or fn returns false.
func Object(b []byte, fn func(key, value []byte) bool) bool {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return SkipSpace(b, i+1) == len(b)
	}
	for {
		end, simple, ok := String(b, i)
		if !ok || !simple {
			return false
		}
		key := b[i+1 : end-1]
		i = SkipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		start := SkipSpace(b, i+1)
		if i, ok = value(b, start, 1); !ok {
			return false
		}
		if !fn(key, b[start:i]) {
			return false
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			return SkipSpace(b, i+1) == len(b)
		}
		if b[i] != ',' {
			return false
		}
		i = SkipSpace(b, i+1)
	}
}

// SimpleString returns the contents of raw, a JSON string of ASCII
// without escape sequences (which decodes to exactly its bytes), or false.
func SimpleString(raw []byte) ([]byte, bool) {
	end, simple, ok := String(raw, 0)
	if !ok || !simple || end != len(raw) {
		return nil, false
	}
	s := raw[1 : len(raw)-1]
	for _, c := range s {
		if c >= 0x80 {
			return nil, false
		}
	}
	return s, true
}

// FoldEqual reports whether key equals name under encoding/json's
// case-insensitive field matching, for ASCII names: encoding/json matches
// object keys to struct fields this way, so a key that folds to a field
// name without being it must be left to encoding/json.
func FoldEqual(key []byte, name string) bool {
	if len(key) != len(name) {
		// encoding/json also folds the Kelvin sign and the long s onto
		// 'k' and 's'; such keys are longer than the name in bytes.
		return foldSpecial(key, name)
	}
	for i := 0; i < len(key); i++ {
		a, b := key[i], name[i]
		if a == b {
			continue
		}
		if a|0x20 != b|0x20 || a|0x20 < 'a' || a|0x20 > 'z' {
			return false
		}
	}
	return true
}

// foldSpecial reports whether key could fold to name through a non-ASCII
// rune; it answers true whenever key holds non-ASCII bytes and name has a
// 'k' or 's', which is conservative.
func foldSpecial(key []byte, name string) bool {
	hasKS := false
	for i := 0; i < len(name); i++ {
		if c := name[i] | 0x20; c == 'k' || c == 's' {
			hasKS = true
		}
	}
	if !hasKS {
		return false
	}
	for _, c := range key {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// PlainString reports whether s can be written between quotes as is:
// printable ASCII with nothing encoding/json would escape.
func PlainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// PlainRaw reports whether raw is valid JSON that encoding/json would write
// unchanged: no whitespace to compact, no character it escapes for HTML
// and no U+2028 or U+2029 (whose UTF-8 starts with 0xE2).
func PlainRaw(raw []byte) bool { return unchanged(raw, true) }

// Compact reports whether raw is valid JSON that encoding/json would write
// unchanged when it does not escape HTML: no whitespace to compact.
func Compact(raw []byte) bool { return unchanged(raw, false) }

func unchanged(raw []byte, html bool) bool {
	inString := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '<', '>', '&', 0xE2:
			if html {
				return false
			}
		case ' ', '\t', '\n', '\r':
			if !inString {
				return false
			}
		case '"':
			inString = !inString
		case '\\':
			i++ // an escaped character never ends the string
		}
	}
	end, ok := Value(raw, 0)
	return ok && end == len(raw)
}
