package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpmount/mcpmount/internal/jsonscan"
)

// ID is a request id: a JSON string or integer kept exactly as received, so
// that large integers survive and the id echoes byte for byte. The zero ID
// is "no id".
type ID struct {
	raw  string
	null bool
}

// StringID returns the id "s" (a JSON string).
func StringID(s string) ID {
	b, _ := json.Marshal(s)
	return ID{raw: string(b)}
}

// NullID returns the id null, which JSON-RPC 2.0 puts in an error response
// to a message whose id could not be read. MCP's 2025-11-25 and later
// schemas leave the id out instead (the zero ID).
func NullID() ID { return ID{null: true} }

// Int64ID returns the integer id n.
func Int64ID(n int64) ID { return ID{raw: strconv.FormatInt(n, 10)} }

// ParseID reads an id from its JSON form. It accepts strings and integers
// (a number with a fraction or exponent is refused, as MCP ids are integers)
// and refuses null, objects, arrays and booleans.
func ParseID(raw json.RawMessage) (ID, error) {
	raw = bytes.Trim(raw, " \t\r\n") // JSON's whitespace only
	if len(raw) == 0 {
		return ID{}, nil
	}
	switch c := raw[0]; {
	case c == '"':
		if end, _, ok := jsonscan.String(raw, 0); !ok || end != len(raw) {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return ID{}, err
			}
		}
		return ID{raw: string(raw)}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if !jsonInteger(raw) {
			return ID{}, errors.New("jsonrpc: id must be a string or an integer")
		}
		return ID{raw: string(raw)}, nil
	case bytes.Equal(raw, []byte("null")):
		return ID{null: true}, nil
	}
	return ID{}, errors.New("jsonrpc: id must be a string or an integer")
}

// IsValid reports whether the id is present (a string or an integer).
func (id ID) IsValid() bool { return id.raw != "" }

// IsZero reports whether the id is absent; it lets encoding/json omit it.
func (id ID) IsZero() bool { return id.raw == "" && !id.null }

// Raw returns the id's JSON form, or "" for the zero id.
func (id ID) Raw() string { return id.raw }

// Key returns a form of the id that is the same for every way of writing
// it ("a" and "\u0061", 0 and -0), for telling ids apart (not JSON: the
// decoded string between quotes). It allocates only for strings written
// with escapes or beyond ASCII; Raw keeps the form received, for echoing.
func (id ID) Key() string {
	raw := id.raw
	if raw == "" || raw[0] != '"' {
		if raw == "-0" {
			return "0"
		}
		return raw
	}
	plain := true
	for i := 1; i < len(raw)-1; i++ {
		if c := raw[i]; c == '\\' || c < 0x20 || c > 0x7e {
			plain = false
			break
		}
	}
	if plain {
		return raw
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil || (strings.ContainsRune(s, utf8.RuneError) && lossy(raw)) {
		// encoding/json turns lone surrogates and invalid bytes into
		// U+FFFD, which would make different ids one: keep the bytes, in
		// a space of keys of their own ("!" starts no other key).
		return "!" + raw
	}
	return `"` + s + `"`
}

// lossy reports whether decoding the JSON string raw may have replaced
// something with U+FFFD: invalid UTF-8, or an escaped surrogate (paired or
// not; a real U+FFFD written next to a valid pair is then kept as bytes
// too, which costs only canonical form).
func lossy(raw string) bool {
	if !utf8.ValidString(raw) {
		return true
	}
	for i := 0; i+5 < len(raw); i++ {
		if raw[i] == '\\' && raw[i+1] == 'u' && (raw[i+2] == 'd' || raw[i+2] == 'D') && strings.ContainsRune("89abAB", rune(raw[i+3])) {
			return true
		}
	}
	return false
}

// String returns the id's JSON form, for logs.
func (id ID) String() string { return id.raw }

// MarshalJSON writes the id as received.
func (id ID) MarshalJSON() ([]byte, error) {
	if id.raw == "" {
		return []byte("null"), nil
	}
	return []byte(id.raw), nil
}

// UnmarshalJSON reads an id; a null id is remembered so that validation can
// refuse it.
func (id *ID) UnmarshalJSON(b []byte) error {
	v, err := ParseID(b)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// jsonInteger reports whether b is a JSON integer: -?(0|[1-9][0-9]*).
func jsonInteger(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || (b[0] == '0' && len(b) > 1) {
		return false
	}
	for _, d := range b {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}
