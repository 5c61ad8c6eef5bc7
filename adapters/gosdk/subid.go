package gosdk

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// subscriptionIDKey names the _meta entry that tags a listen's
// notifications with the listen request's id
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions).
const subscriptionIDKey = "io.modelcontextprotocol/subscriptionId"

// subIDHole stands for the subscription id in a template while it is built.
const subIDHole = `"\u0000subscriptionId\u0000"`

// subTemplate is a notification's params with a hole where each listen's
// subscription id goes: one broadcast is encoded once, not once per
// listen.
type subTemplate struct {
	prefix, suffix string
}

// listChangedTemplate is the params of a list-change notification, which
// carry nothing but the subscription id.
var listChangedTemplate = mustSubTemplate(nil)

func mustSubTemplate(params json.RawMessage) *subTemplate {
	t, err := newSubTemplate(params)
	if err != nil {
		panic(err)
	}
	return t
}

// newSubTemplate makes the template of params (an object, or nothing),
// whose _meta gets the subscription id beside what it holds.
func newSubTemplate(params json.RawMessage) (*subTemplate, error) {
	obj := map[string]json.RawMessage{}
	if p := bytes.TrimSpace(params); len(p) > 0 && !bytes.Equal(p, []byte("null")) {
		if err := json.Unmarshal(p, &obj); err != nil {
			return nil, fmt.Errorf("gosdk: notification params: %w", err)
		}
	}
	meta := map[string]json.RawMessage{}
	if m := bytes.TrimSpace(obj["_meta"]); len(m) > 0 && !bytes.Equal(m, []byte("null")) {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, fmt.Errorf("gosdk: notification _meta: %w", err)
		}
	}
	meta[subscriptionIDKey] = json.RawMessage(subIDHole)
	rawMeta, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	obj["_meta"] = rawMeta
	full, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	i := bytes.Index(full, []byte(subIDHole))
	if i < 0 {
		return nil, fmt.Errorf("gosdk: building notification params: no place for the subscription id")
	}
	return &subTemplate{prefix: string(full[:i]), suffix: string(full[i+len(subIDHole):])}, nil
}

// with returns the params with id, a JSON-RPC id in its JSON form.
func (t *subTemplate) with(id string) json.RawMessage {
	b := make([]byte, 0, len(t.prefix)+len(id)+len(t.suffix))
	b = append(b, t.prefix...)
	b = append(b, id...)
	return append(b, t.suffix...)
}
