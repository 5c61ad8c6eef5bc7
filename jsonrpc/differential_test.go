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
// encoding/json gives.
func FuzzFastPaths(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2,{"b":null}]}}}`,
		`{"jsonrpc":"2.0","id":"a\u00e9","result":{"x":"\n"}}`,
		`{"jsonrpc":"2.0","method":"n","params":{},"method":"m"}`,
		`{"JSONRPC":"2.0","id":-0,"method":"x"}`,
		` {"jsonrpc" : "2.0" , "id" : 12345678901234567890 , "method" : "x" } `,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope","data":{"a":1}}}`,
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
			want, err := json.Marshal(m)
			if err != nil {
				t.Fatalf("fast encoder wrote %q, encoding/json refused: %v", b, err)
			}
			if !bytes.Equal(b, want) {
				t.Fatalf("fast encoding %q != encoding/json %q", b, want)
			}
		}
	})
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
