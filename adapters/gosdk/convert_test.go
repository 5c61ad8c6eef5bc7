package gosdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	gojsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// roundTrip converts msg the slow way: the SDK's encoder, then the
// transport's decoder.
func roundTrip(msg gojsonrpc.Message) (*jsonrpc.Message, error) {
	data, err := gojsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, err
	}
	return jsonrpc.Decode(data)
}

// checkFromSDK fails if the direct conversion of msg answers anything other
// than the round trip, and reports whether it answered.
func checkFromSDK(t *testing.T, msg gojsonrpc.Message) bool {
	t.Helper()
	fast, ok := messageFromSDK(msg)
	if !ok {
		return false
	}
	slow, err := roundTrip(msg)
	if err != nil {
		t.Fatalf("direct conversion accepted %#v, the round trip refused it: %v", msg, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("direct %+v != round trip %+v", fast, slow)
	}
	return true
}

func TestMessageFromSDK(t *testing.T) {
	t.Parallel()
	id := func(v any) gojsonrpc.ID {
		id, err := gojsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for _, c := range []struct {
		name    string
		msg     gojsonrpc.Message
		direct  bool // converted without the round trip
		refused bool // not a message the transport accepts
	}{
		{"progress notification", &gojsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progressToken":1,"progress":3,"total":10}`)}, true, false},
		{"notification without params", &gojsonrpc.Request{Method: "notifications/tools/list_changed"}, true, false},
		{"notification with empty params", &gojsonrpc.Request{Method: "notifications/tools/list_changed", Params: json.RawMessage{}}, true, false},
		{"server request", &gojsonrpc.Request{ID: id(float64(7)), Method: "sampling/createMessage", Params: json.RawMessage(`{"messages":[]}`)}, true, false},
		{"result with markup", &gojsonrpc.Response{ID: id(float64(1)), Result: json.RawMessage(`{"content":[{"type":"text","text":"<b>a & b</b>"}]}`)}, true, false},
		{"wire error with data", &gojsonrpc.Response{ID: id(float64(2)), Error: &gojsonrpc.Error{Code: -32602, Message: "bad", Data: json.RawMessage(`{"field":"x"}`)}}, true, false},
		{"wire error without data", &gojsonrpc.Response{ID: id(float64(2)), Error: &gojsonrpc.Error{Code: -32601, Message: "no such method"}}, true, false},
		{"string id", &gojsonrpc.Response{ID: id("a"), Result: json.RawMessage(`{}`)}, false, false},
		{"wrapped error", &gojsonrpc.Response{ID: id(float64(3)), Error: fmt.Errorf("tool: %w", &gojsonrpc.Error{Code: -32000, Message: "x"})}, false, false},
		{"typed nil error", &gojsonrpc.Response{ID: id(float64(3)), Error: (*gojsonrpc.Error)(nil)}, false, true},
		{"plain error", &gojsonrpc.Response{ID: id(float64(3)), Error: errors.New("boom")}, false, false},
		{"params with spaces", &gojsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{ "level": "info" }`)}, false, false},
		{"params not an object", &gojsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`"x"`)}, false, true},
		{"escaped method", &gojsonrpc.Request{Method: "a\"b"}, false, false},
		{"response without result or error", &gojsonrpc.Response{ID: id(float64(4))}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := checkFromSDK(t, c.msg); got != c.direct {
				t.Fatalf("direct conversion answered %v, want %v", got, c.direct)
			}
			if _, err := fromSDK(c.msg); (err != nil) != c.refused {
				t.Fatalf("fromSDK: error %v, want refused %v", err, c.refused)
			}
		})
	}
}

// FuzzMessageFromSDK checks the direct conversion against the round trip
// on whatever the SDK's decoder makes of the input.
func FuzzMessageFromSDK(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"<&>"}]}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32603,"message":"m","data":[1,{"a":null}]}}`,
		`{"jsonrpc":"2.0","id":5,"method":"roots/list","params":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, err := gojsonrpc.DecodeMessage(data)
		if err != nil {
			return
		}
		checkFromSDK(t, msg)
	})
}
