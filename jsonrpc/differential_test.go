package jsonrpc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// reference decodes as the slow path does: encoding/json into a Message.
func reference(data []byte) (*Message, error) {
	m := new(Message)
	err := json.Unmarshal(data, m)
	return m, err
}

// FuzzFastPaths checks the reflection-free decoder and encoder against
// encoding/json: whenever a fast path answers, it answers exactly what
// encoding/json gives (for encoding, Encode's slow path).
func FuzzFastPaths(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2,{"b":null}]}}}`,
		`{"jsonrpc":"2.0","id":"a\u00e9","result":{"x":"\n"}}`,
		`{"jsonrpc":"2.0","method":"n","params":{},"method":"m"}`,
		`{"JSONRPC":"2.0","id":-0,"method":"x"}`,
		` {"jsonrpc" : "2.0" , "id" : 12345678901234567890 , "method" : "x" } `,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope","data":{"a":1}}}`,
		`{"jsonrpc":"2.0","id":"<&>","result":{"text":"a<b && c>d \u2028  "}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if fast, ok := decodeFast(data); ok {
			ref, err := reference(data)
			if err != nil {
				t.Fatalf("fast path accepted %q, encoding/json refused it: %v", data, err)
			}
			if !reflect.DeepEqual(normalize(fast), normalize(ref)) {
				t.Fatalf("fast %+v != reference %+v for %q", fast, ref, data)
			}
		}
		m, err := reference(data)
		if err != nil {
			return
		}
		if b, ok := m.appendFast(nil); ok {
			want, err := m.encodeSlow()
			if err != nil {
				t.Fatalf("fast encoder wrote %q, encoding/json refused: %v", b, err)
			}
			if !bytes.Equal(b, want) {
				t.Fatalf("fast encoding %q != encoding/json %q", b, want)
			}
		}
	})
}

// TestFastEncodeKeepsMarkup checks that results holding characters
// encoding/json escapes only for HTML (common in tool output) are encoded
// by the fast path, and exactly as the slow path would.
func TestFastEncodeKeepsMarkup(t *testing.T) {
	m := NewResponse(StringID("<&>"), json.RawMessage(`{"text":"<p>a && b</p> \u2028 `+"\u2028"+`"}`))
	got, ok := m.appendFast(nil)
	if !ok {
		t.Fatal("fast path refused a result with markup")
	}
	want, err := m.encodeSlow()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("fast %s != reference %s", got, want)
	}
}

// normalize makes empty raw values comparable.
func normalize(m *Message) Message {
	c := *m
	if len(c.Params) == 0 {
		c.Params = nil
	}
	if len(c.Result) == 0 {
		c.Result = nil
	}
	return c
}
