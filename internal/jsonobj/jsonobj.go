// Package jsonobj walks the members of a JSON object through
// encoding/json's tokenizer, which unescapes their names: for the slow
// paths that must read names exactly as JSON defines them, where
// encoding/json's struct decoding would fold case.
package jsonobj

import (
	"bytes"
	"encoding/json"
)

// Members calls fn for each member of the JSON object obj, in order, with
// its unescaped name and its raw value. It reports false, having stopped,
// if obj is not a valid object.
func Members(obj []byte, fn func(name string, value json.RawMessage)) bool {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		name, _ := t.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return false
		}
		fn(name, value)
	}
	return true
}
