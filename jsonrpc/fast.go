package jsonrpc

import (
	"strconv"

	"github.com/mcpmount/mcpmount/internal/jsonscan"
)

// The fast paths below read and write the common shapes of messages
// without reflection. Each gives exactly what encoding/json gives, and
// declines (ok false) wherever that would take more than a plain scan:
// escaped or case-folded keys, duplicate keys, null or scalar params,
// error objects, characters encoding/json escapes. The callers then use
// encoding/json itself.

// Message fields, as bits of a set.
const (
	fieldJSONRPC = 1 << iota
	fieldID
	fieldMethod
	fieldParams
	fieldResult
)

var fieldNames = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// decodeFast decodes data as json.Unmarshal into a Message would, when data
// is a plain object. Params and Result share one copy of data.
func decodeFast(data []byte) (*Message, bool) {
	start := jsonscan.SkipSpace(data, 0)
	if start >= len(data) || data[start] != '{' {
		return nil, false
	}
	buf := make([]byte, len(data))
	copy(buf, data)
	m := new(Message)
	var seen int
	ok := jsonscan.Object(buf, func(key, value []byte) bool {
		var bit int
		switch string(key) {
		case "jsonrpc":
			s, ok := jsonscan.SimpleString(value)
			if !ok {
				return false
			}
			if string(s) == Version {
				m.JSONRPC = Version
			} else {
				m.JSONRPC = string(s)
			}
			bit = fieldJSONRPC
		case "id":
			id, err := ParseID(value)
			if err != nil {
				return false
			}
			m.ID = id
			bit = fieldID
		case "method":
			s, ok := jsonscan.SimpleString(value)
			if !ok {
				return false
			}
			m.Method = methodName(s)
			bit = fieldMethod
		case "params":
			if value[0] != '{' && value[0] != '[' {
				return false
			}
			m.Params = value[:len(value):len(value)]
			bit = fieldParams
		case "result":
			if value[0] != '{' && value[0] != '[' {
				return false
			}
			m.Result = value[:len(value):len(value)]
			bit = fieldResult
		default:
			// "error", and any key encoding/json could fold onto a field.
			for _, name := range fieldNames {
				if jsonscan.FoldEqual(key, name) {
					return false
				}
			}
			return true
		}
		if seen&bit != 0 {
			return false
		}
		seen |= bit
		return true
	})
	if !ok {
		return nil, false
	}
	return m, true
}

// methodName returns s as a string, without allocating for the methods
// every session uses.
func methodName(s []byte) string {
	switch string(s) {
	case "tools/call":
		return "tools/call"
	case "tools/list":
		return "tools/list"
	case "initialize":
		return "initialize"
	case "notifications/initialized":
		return "notifications/initialized"
	case "notifications/cancelled":
		return "notifications/cancelled"
	case "notifications/progress":
		return "notifications/progress"
	case "subscriptions/listen":
		return "subscriptions/listen"
	case "server/discover":
		return "server/discover"
	case "resources/read":
		return "resources/read"
	case "resources/list":
		return "resources/list"
	case "prompts/get":
		return "prompts/get"
	case "prompts/list":
		return "prompts/list"
	case "ping":
		return "ping"
	}
	return string(s)
}

// appendFast appends the encoding Encode's slow path (encoding/json without
// HTML escaping) gives m, when every field can be written as is.
func (m *Message) appendFast(b []byte) ([]byte, bool) {
	if !jsonscan.PlainString(m.JSONRPC) || !jsonscan.PlainString(m.Method) {
		return nil, false
	}
	if !m.ID.IsZero() && m.ID.raw != "" && !jsonscan.Compact([]byte(m.ID.raw)) {
		return nil, false
	}
	if len(m.Params) > 0 && !jsonscan.Compact(m.Params) || len(m.Result) > 0 && !jsonscan.Compact(m.Result) {
		return nil, false
	}
	if e := m.Error; e != nil && (!jsonscan.PlainString(e.Message) || len(e.Data) > 0 && !jsonscan.Compact(e.Data)) {
		return nil, false
	}
	if b == nil {
		n := 48 + len(m.JSONRPC) + len(m.ID.raw) + len(m.Method) + len(m.Params) + len(m.Result)
		if m.Error != nil {
			n += 48 + len(m.Error.Message) + len(m.Error.Data)
		}
		b = make([]byte, 0, n)
	}
	b = append(b, `{"jsonrpc":"`...)
	b = append(b, m.JSONRPC...)
	b = append(b, '"')
	if !m.ID.IsZero() {
		b = append(b, `,"id":`...)
		if m.ID.raw == "" {
			b = append(b, "null"...)
		} else {
			b = append(b, m.ID.raw...)
		}
	}
	if m.Method != "" {
		b = append(b, `,"method":"`...)
		b = append(b, m.Method...)
		b = append(b, '"')
	}
	if len(m.Params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, m.Params...)
	}
	if len(m.Result) > 0 {
		b = append(b, `,"result":`...)
		b = append(b, m.Result...)
	}
	if e := m.Error; e != nil {
		b = append(b, `,"error":{"code":`...)
		b = strconv.AppendInt(b, e.Code, 10)
		b = append(b, `,"message":"`...)
		b = append(b, e.Message...)
		b = append(b, '"')
		if len(e.Data) > 0 {
			b = append(b, `,"data":`...)
			b = append(b, e.Data...)
		}
		b = append(b, '}')
	}
	return append(b, '}'), true
}
