package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/internal/jsonscan"
)

// nested returns a request whose arguments nest depth-2 levels, so
// the whole message nests depth levels (message, params, then arguments).
func nested(depth int) []byte {
	inner := strings.Repeat(`{"a":`, depth-2) + `1` + strings.Repeat(`}`, depth-2)
	return []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + inner + `}}`)
}

func TestDecodeRefusesDeepNesting(t *testing.T) {
	if _, err := Decode(nested(MaxDepth)); err != nil {
		t.Errorf("a message nested %d levels (the limit): %v", MaxDepth, err)
	}
	for _, body := range [][]byte{nested(MaxDepth + 1), nested(1000), append(append([]byte("["), nested(MaxDepth)...), ']')} {
		var err error
		if body[0] == '[' {
			_, _, _, err = DecodeBatch(body)
		} else {
			_, err = Decode(body)
		}
		var e *Error
		if !asError(err, &e) || e.Code != CodeParseError || !strings.Contains(e.Message, "256 levels") {
			t.Errorf("a body nested past %d levels: %v; want a parse error naming the limit", MaxDepth, err)
		}
	}
	// Brackets inside strings, escaped quotes among them, do not count.
	deepText := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":"\"` + strings.Repeat("[{", 1000) + `"}}`
	if _, err := Decode([]byte(deepText)); err != nil {
		t.Errorf("brackets inside a string counted as nesting: %v", err)
	}
}

func asError(err error, e **Error) bool {
	v, ok := err.(*Error)
	*e = v
	return ok
}

// depthOf is the nesting of valid JSON b, read with encoding/json.
func depthOf(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	depth, deepest := 0, 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
			deepest = max(deepest, depth)
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

func FuzzDeeperThan(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":"[[[\"]]"}]}`, `[[[]]]`, `"\\"`, `{"a":"\\\\"}`} {
		f.Add([]byte(s), 2)
	}
	f.Fuzz(func(t *testing.T, b []byte, max int) {
		if max < 0 || max > 64 || !json.Valid(b) {
			return
		}
		if got, want := jsonscan.DeeperThan(b, max), depthOf(b) > max; got != want {
			t.Fatalf("DeeperThan(%q, %d) = %v; encoding/json counts %d levels", b, max, got, depthOf(b))
		}
	})
}
