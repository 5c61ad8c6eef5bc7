package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// refDecode is jsonrpc.Decode as it was before its fast path: plain
// encoding/json, then the same shape checks (through Decode itself, which
// runs them on the message it decoded).
func refDecode(data []byte) (*jsonrpc.Message, error) {
	data = bytes.TrimLeft(data, " \t\r\n")
	if len(data) > 0 && data[0] == '[' {
		return nil, jsonrpc.ErrBatch
	}
	m := new(jsonrpc.Message)
	if err := json.Unmarshal(data, m); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) || len(data) == 0 {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: "parse error: " + err.Error()}
		}
		// The id echoed is the exact "id" member (names are case-sensitive).
		var probe map[string]json.RawMessage
		bad := new(jsonrpc.Message)
		if json.Unmarshal(data, &probe) == nil {
			if id, err := jsonrpc.ParseID(probe["id"]); err == nil && id.IsValid() {
				bad.ID = id
			}
		}
		return bad, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error()}
	}
	return m, nil
}

var seeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"x","params":[1,2.5e3,-0.1,true,false,null,"s\"\\\u00e9"]}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"a < b & c"}]}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope","data":{"x":1}}}`,
	` { "jsonrpc" : "2.0" , "id" : 12345678901234567890 , "method" : "m" , "params" : { } } `,
	`{"JSONRPC":"2.0","Id":1,"Method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"m"}`,
	`{"jsonrpc":"2.0","id":null,"method":"m","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":3}`,
	`{"jsonrpc":"2.0","id":1,"method":"m\u0041","extra":{"deep":[[[{}]]]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"k":"\u2028"}}`,
	`{"jsonrpc":"2.0","id":"\u0041","method":"m"}`,
	`{"jsonrpc":"2.0","id":01,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m"}x`,
	`{"jsonrpc":"2.0","id":1,"meth\u006fd":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","r\u0065sult":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","ſ":1,"K":2}`,
}

var alphabet = []byte(`{}[]:," \\u0041abcdefghijklmnopqrstuvwxyzIDJSONRPC0123456789.-+eE<>&` + "\t\n\x00\x1f\xe2\x80\xa8\xc3\xa9")

func mutate(r *rand.Rand, b []byte) []byte {
	b = append([]byte(nil), b...)
	for range 1 + r.IntN(3) {
		if len(b) == 0 {
			b = append(b, alphabet[r.IntN(len(alphabet))])
			continue
		}
		i := r.IntN(len(b))
		switch r.IntN(4) {
		case 0:
			b[i] = alphabet[r.IntN(len(alphabet))]
		case 1:
			b = append(b[:i], b[i+1:]...)
		case 2:
			b = append(b[:i], append([]byte{alphabet[r.IntN(len(alphabet))]}, b[i:]...)...)
		case 3:
			if c := b[i]; c >= 'a' && c <= 'z' {
				b[i] = c - 32
			}
		}
	}
	return b
}

// foldedName reports whether the object data has a member whose name is
// a JSON-RPC member's in another case, which encoding/json folds onto it
// and jsonrpc.Decode refuses.
func foldedName(data []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	for k := range m {
		for _, name := range []string{"jsonrpc", "id", "method", "params", "result", "error"} {
			if k != name && strings.EqualFold(k, name) {
				return true
			}
		}
	}
	return false
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	got, gotErr := jsonrpc.Decode(data)
	want, wantErr := refDecode(data)
	if wantErr == nil && want != nil && foldedName(data) {
		var e *jsonrpc.Error
		var probe map[string]json.RawMessage
		_ = json.Unmarshal(data, &probe)
		wantID, _ := jsonrpc.ParseID(probe["id"]) // the exact "id" member's
		if !wantID.IsValid() {
			wantID = jsonrpc.ID{}
		}
		if !errors.As(gotErr, &e) || e.Code != jsonrpc.CodeInvalidRequest || got == nil || got.ID != wantID {
			t.Fatalf("%q: %+v, %v; want -32600 with id %v (a member name in another case)", data, got, gotErr, wantID)
		}
		return
	}
	if wantErr == nil && want != nil {
		// Decode runs the shape checks; compare the message and let the
		// check error be whatever Decode says for both.
		if got == nil {
			t.Fatalf("%q: got nil message, want %+v", data, want)
		}
		if !reflect.DeepEqual(normal(got), normal(want)) {
			t.Fatalf("%q:\n got %+v\nwant %+v", data, got, want)
		}
		return
	}
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("%q: error %v, want %v", data, gotErr, wantErr)
	}
	if (got == nil) != (want == nil) || got != nil && got.ID != want.ID {
		t.Fatalf("%q: message %+v, want %+v", data, got, want)
	}
	if got != nil {
		checkEncode(t, got)
	}
}

// normal drops the difference between nil and empty raw fields, which
// encoding/json itself does not make on output.
func normal(m *jsonrpc.Message) jsonrpc.Message {
	c := *m
	if len(c.Params) == 0 {
		c.Params = nil
	}
	if len(c.Result) == 0 {
		c.Result = nil
	}
	return c
}

// refEncode is Message.Encode without its fast path: encoding/json,
// without HTML escaping (so raw values go out unchanged).
func refEncode(m *jsonrpc.Message) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func checkEncode(t *testing.T, m *jsonrpc.Message) {
	t.Helper()
	got, gotErr := m.Encode()
	want, wantErr := refEncode(m)
	if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("Encode(%+v) = %s, %v; encoding/json = %s, %v", m, got, gotErr, want, wantErr)
	}
}

// TestDecodeEncodeMatchEncodingJSON checks jsonrpc's reflection-free fast
// paths against encoding/json on seeds and random mutations of them.
func TestDecodeEncodeMatchEncodingJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	for _, s := range seeds {
		checkDecode(t, []byte(s))
	}
	for range n {
		data := mutate(r, []byte(seeds[r.IntN(len(seeds))]))
		checkDecode(t, data)
		if m, err := jsonrpc.Decode(data); err == nil {
			checkEncode(t, m)
		}
	}
	for _, m := range []*jsonrpc.Message{
		jsonrpc.NewNotification("a<b", nil),
		jsonrpc.NewNotification("é", json.RawMessage(`{"a" : 1}`)),
		jsonrpc.NewError(jsonrpc.StringID("x<y"), jsonrpc.Errorf(-1, "m&n")),
		jsonrpc.NewError(jsonrpc.ID{}, &jsonrpc.Error{Code: 5, Message: "ok", Data: json.RawMessage(`[1, 2]`)}),
		jsonrpc.NewError(jsonrpc.Int64ID(3), &jsonrpc.Error{Code: 5, Message: "ok", Data: json.RawMessage(`{bad`)}),
		jsonrpc.NewResponse(jsonrpc.Int64ID(3), json.RawMessage(`{"x":"\u2028"}`)),
		jsonrpc.NewResponse(jsonrpc.Int64ID(3), json.RawMessage("{\"x\":\"\u2028\"}")),
		jsonrpc.NewResponse(jsonrpc.Int64ID(3), json.RawMessage(`{"x":1`)),
		{JSONRPC: "2.0", Method: "m", Params: json.RawMessage{}},
	} {
		checkEncode(t, m)
	}
}

// FuzzDecodeMatchesEncodingJSON is the same check under the fuzzer.
func FuzzDecodeMatchesEncodingJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
		if m, err := jsonrpc.Decode(data); err == nil {
			checkEncode(t, m)
		}
	})
}
