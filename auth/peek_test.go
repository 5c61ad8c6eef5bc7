package auth

import (
	"reflect"
	"testing"
)

// TestScanRPC: the messages scopes are checked against, whatever shape the
// body has: one object, a batch, concatenated values; a batch inside a
// batch holds no messages; scanning stops at a syntax error.
func TestScanRPC(t *testing.T) {
	t.Parallel()
	call := func(method, tool string) rpcCall {
		c := rpcCall{methods: []string{method}}
		if tool != "" {
			c.tools = []string{tool}
		}
		return c
	}
	for _, tc := range []struct {
		name, body string
		want       []rpcCall
	}{
		{"object", `{"method":"tools/call","params":{"name":"a"}}`, []rpcCall{call("tools/call", "a")}},
		{"batch", `[{"method":"x"},{"METHOD":"tools/call","params":{"name":"b"}}]`, []rpcCall{call("x", ""), call("tools/call", "b")}},
		{"nested batch skipped", `[[{"method":"hidden"}],{"method":"y"}]`, []rpcCall{call("y", "")}},
		{"concatenated", `{"method":"a"} 7 "s" {"method":"b"}`, []rpcCall{call("a", ""), call("b", "")}},
		{"stops at a syntax error", `[{"method":"a"},{"method":}] {"method":"b"}`, []rpcCall{call("a", ""), {}}},
		{"not JSON", `hello`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scanRPC([]byte(tc.body)); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("scanRPC(%s) = %+v, want %+v", tc.body, got, tc.want)
			}
		})
	}
}
