package jsonrpc

import "testing"

// TestIDKeyDistinctStrings: ID.Key gives distinct JSON string values
// distinct keys, although json.Unmarshal turns lone surrogates and invalid
// UTF-8 into U+FFFD.
func TestIDKeyDistinctStrings(t *testing.T) {
	pairs := [][2]string{
		{`"\ud800"`, `"\udbff"`},     // two lone surrogates (ASCII on the wire)
		{`"\ud800"`, `"\ufffd"`},     // lone surrogate vs U+FFFD
		{"\"a\xffb\"", "\"a\xfeb\""}, // invalid UTF-8 bytes
		{"\"a\xffb\"", `"a\ufffdb"`}, // invalid UTF-8 vs U+FFFD
	}
	for _, p := range pairs {
		a, errA := ParseID([]byte(p[0]))
		b, errB := ParseID([]byte(p[1]))
		if errA != nil || errB != nil {
			t.Logf("ParseID refused %q (%v) or %q (%v)", p[0], errA, p[1], errB)
			continue
		}
		if a.Key() == b.Key() {
			t.Errorf("different ids %s and %s share the key %q", p[0], p[1], a.Key())
		}
	}
}

// TestDecodeLoneSurrogateIDs: such ids, which Decode accepts (they reach
// a session's in-flight map), keep distinct keys.
func TestDecodeLoneSurrogateIDs(t *testing.T) {
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":"\ud800","method":"tools/call","params":{}}`))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	n, _ := Decode([]byte(`{"jsonrpc":"2.0","id":"\udbff","method":"tools/call","params":{}}`))
	if m.ID.Key() == n.ID.Key() {
		t.Errorf("requests with ids %s and %s are one id in flight (key %q)", m.ID.Raw(), n.ID.Raw(), m.ID.Key())
	}
}

// TestIDKeyFallbackApart: the keys ID.Key keeps as raw bytes (lone
// surrogates) are apart from decoded ones: a lone-surrogate id and the
// string of its escape's characters (a backslash, "ud800") differ.
func TestIDKeyFallbackApart(t *testing.T) {
	for _, p := range [][2]string{
		{`"\ud800"`, `"\\ud800"`},
		{`"\ufffd"`, `"\\ufffd"`},
	} {
		a, errA := ParseID([]byte(p[0]))
		b, errB := ParseID([]byte(p[1]))
		if errA != nil || errB != nil {
			t.Fatalf("ParseID: %v %v", errA, errB)
		}
		if a.Key() == b.Key() {
			t.Errorf("different ids %s and %s share the key %q", p[0], p[1], a.Key())
		}
	}
}

// TestIDKeyReplacementChar: U+FFFD written three ways is one JSON value,
// with one key.
func TestIDKeyReplacementChar(t *testing.T) {
	spellings := []string{"\"\uFFFD\"", `"\ufffd"`, `"\uFFFD"`}
	var keys []string
	for _, s := range spellings {
		id, err := ParseID([]byte(s))
		if err != nil {
			t.Fatalf("ParseID(%s): %v", s, err)
		}
		keys = append(keys, id.Key())
	}
	for i := 1; i < len(keys); i++ {
		if keys[i] != keys[0] {
			t.Errorf("%s and %s (the same string) have keys %q and %q", spellings[0], spellings[i], keys[0], keys[i])
		}
	}
}
