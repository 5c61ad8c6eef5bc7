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
