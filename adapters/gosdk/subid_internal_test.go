package gosdk

import (
	"encoding/json"
	"testing"
)

// TestSubTemplate: a listen's notification keeps the params the server
// gave it, _meta entries included, and gets the listen's subscription id,
// whatever form the id takes; an id the server put there is replaced.
func TestSubTemplate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		params string
		id     string
		uri    string
		meta   map[string]string
	}{
		{"", "1", "", nil},
		{`{}`, `"abc"`, "", nil},
		{`{"uri":"file:///a?x=1&y=<2>"}`, "-7", "file:///a?x=1&y=<2>", nil},
		{`{"uri":"u","_meta":{"k":"v","io.modelcontextprotocol/subscriptionId":99}}`, `"s\"q"`, "u", map[string]string{"k": `"v"`}},
	}
	for _, c := range cases {
		tmpl, err := newSubTemplate(json.RawMessage(c.params))
		if err != nil {
			t.Fatalf("%s: %v", c.params, err)
		}
		var got struct {
			URI  string                     `json:"uri"`
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		raw := tmpl.with(c.id)
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s with %s: %s: %v", c.params, c.id, raw, err)
		}
		if got.URI != c.uri || string(got.Meta[subscriptionIDKey]) != c.id {
			t.Errorf("%s with %s: %s", c.params, c.id, raw)
		}
		for k, v := range c.meta {
			if string(got.Meta[k]) != v {
				t.Errorf("%s: _meta %s = %s, want %s", c.params, k, got.Meta[k], v)
			}
		}
	}
	if _, err := newSubTemplate(json.RawMessage(`[1]`)); err == nil {
		t.Error("params that are not an object: no error")
	}
}
