package auth

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcpmount/mcpmount/jsonrpc"
)

// FuzzScanRPC: the scope check never sees less than the transport
// dispatches. For every message of a body that jsonrpc decodes as valid
// (what the transport hands to the engine), some scanned message lists its
// method and, for tools/call, the tool name encoding/json reads from its
// params. A body on which the two disagree could reach a tool without the
// tool's scope.
func FuzzScanRPC(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b","arguments":{}}}]`,
		`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"a","NAME":"admin"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"n\u0061me":"\u0061dmin"}}`,
		`{"jsonrpc":"2.0","id":1,"Method":"tools/call","method":"tools/call","params":{"name":"x\ud800"}}`,
		` {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}} `,
		`[[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"admin"}}]]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		msgs, errs, _, err := jsonrpc.DecodeBatch(body)
		if err != nil {
			return
		}
		calls := scanRPC(body)
		for i, m := range msgs {
			if errs[i] != nil || m.Method == "" {
				continue
			}
			var p struct {
				Name *string `json:"name"`
			}
			name := ""
			tool := m.Method == "tools/call" && json.Unmarshal(m.Params, &p) == nil && p.Name != nil
			if tool {
				name = *p.Name
			}
			seen := slices.ContainsFunc(calls, func(c rpcCall) bool {
				return slices.Contains(c.methods, m.Method) && (!tool || slices.Contains(c.tools, name))
			})
			if !seen {
				t.Fatalf("body %q: the transport dispatches %s (tool %q) but the scope check scanned %+v",
					body, m.Method, name, calls)
			}
		}
	})
}
