package otelmcp

import (
	"encoding/json"
	"testing"
)

// TestParseParamsMatchesEncodingJSON: the walk without reflection reads
// what encoding/json reads, for plain params and for the ones it leaves to
// encoding/json (escapes, keys in another case, values of other types).
func TestParseParamsMatchesEncodingJSON(t *testing.T) {
	for _, params := range []string{
		`{"name":"echo","arguments":{"name":"inner","uri":"x"}}`,
		`{"uri":"test://doc","_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"a=b","baggage":"k=v"}}`,
		`{"name":"ech\u006f"}`,
		`{"NAME":"upper","_META":{"TRACEPARENT":"tp"}}`,
		`{"name":5,"uri":null,"_meta":[1,2]}`,
		`{"_meta":{"progressToken":"p","traceparent":"tp"},"name":"late"}`,
		` { "name" : "spaced" } `,
		`{}`,
		`[]`,
		`{"name":"ünïcode"}`,
	} {
		var want callParams
		_ = json.Unmarshal([]byte(params), &want)
		if got := parseParams(json.RawMessage(params)); got != want {
			t.Errorf("%s: got %+v, encoding/json reads %+v", params, got, want)
		}
	}
}
