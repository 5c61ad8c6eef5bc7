package stdio

import (
	"encoding/json"
	"testing"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// TestModernAnswer: an initialize-era answer made a 2026-07-28 one: a
// missing resource's -32002 becomes -32602; results are complete, with
// caching hints where the 2026-07-28 caching rules ask for them, and
// what the child set is kept.
func TestModernAnswer(t *testing.T) {
	t.Parallel()
	notFound := jsonrpc.NewError(jsonrpc.Int64ID(1), &jsonrpc.Error{Code: -32002, Message: "Resource not found"})
	got, err := modernAnswer("resources/read", notFound)
	if err != nil || got.Error.Code != jsonrpc.CodeInvalidParams || got.Error.Message != "Resource not found" {
		t.Errorf("not found: %+v %v", got.Error, err)
	}
	for _, c := range []struct {
		method, result string
		want           map[string]string
	}{
		{"tools/list", `{"tools":[]}`, map[string]string{"resultType": `"complete"`, "ttlMs": "0", "cacheScope": `"private"`}},
		{"tools/call", `{"content":[]}`, map[string]string{"resultType": `"complete"`}},
		{"resources/read", `{"contents":[],"ttlMs":5000}`, map[string]string{"resultType": `"complete"`, "ttlMs": "5000", "cacheScope": `"private"`}},
	} {
		got, err := modernAnswer(c.method, jsonrpc.NewResponse(jsonrpc.Int64ID(1), json.RawMessage(c.result)))
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		var res map[string]json.RawMessage
		if err := json.Unmarshal(got.Result, &res); err != nil {
			t.Fatal(err)
		}
		for k, v := range c.want {
			if string(res[k]) != v {
				t.Errorf("%s: %s = %s, want %s", c.method, k, res[k], v)
			}
		}
		if _, ok := res["ttlMs"]; ok && c.want["ttlMs"] == "" {
			t.Errorf("%s: caching hints on a result that takes none", c.method)
		}
	}
}

// TestSwapProgressToken: the token is replaced and returned; params
// without one are left as they are; a _meta that is not an object is an
// error.
func TestSwapProgressToken(t *testing.T) {
	t.Parallel()
	old, out, err := swapProgressToken(json.RawMessage(`{"name":"x","_meta":{"progressToken":7,"k":"v"}}`), "mine")
	if err != nil || string(old) != "7" {
		t.Fatalf("old %s, %v", old, err)
	}
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	_ = json.Unmarshal(out, &p)
	if p.Meta["progressToken"] != "mine" || p.Meta["k"] != "v" {
		t.Errorf("rewritten %s", out)
	}
	in := json.RawMessage(`{"name":"x"}`)
	if old, out, err := swapProgressToken(in, "mine"); old != nil || string(out) != string(in) || err != nil {
		t.Errorf("without a token: %s %s %v", old, out, err)
	}
	if _, _, err := swapProgressToken(json.RawMessage(`{"_meta":["progressToken"]}`), "mine"); err == nil {
		t.Error("a _meta array was accepted")
	}
}
