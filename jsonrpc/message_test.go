package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		wantCode int64 // 0: no error
		wantID   string
		kind     string
	}{
		{"request int id", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, 0, "7", "request"},
		{"request big id kept exactly", `{"jsonrpc":"2.0","id":12345678901234567890,"method":"x"}`, 0, "12345678901234567890", "request"},
		{"request string id", `{"jsonrpc":"2.0","id":"a-1","method":"x","params":{}}`, 0, `"a-1"`, "request"},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0, "", "notification"},
		{"response", `{"jsonrpc":"2.0","id":1,"result":{}}`, 0, "1", "response"},
		{"error response", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, 0, "1", "response"},
		{"not json", `{"jsonrpc":`, CodeParseError, "", ""},
		{"empty", ``, CodeParseError, "", ""},
		{"wrong version", `{"jsonrpc":"1.0","id":1,"method":"x"}`, CodeInvalidRequest, "1", ""},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"x"}`, CodeInvalidRequest, "", ""},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, CodeInvalidRequest, "", ""},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"x"}`, CodeInvalidRequest, "", ""},
		{"method not string", `{"jsonrpc":"2.0","id":3,"method":5}`, CodeInvalidRequest, "3", ""},
		{"no method no id", `{"jsonrpc":"2.0"}`, CodeInvalidRequest, "", ""},
		{"response with both", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}`, CodeInvalidRequest, "1", ""},
		{"response with neither", `{"jsonrpc":"2.0","id":1}`, CodeInvalidRequest, "1", ""},
		{"request with result", `{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, CodeInvalidRequest, "1", ""},
		{"params scalar", `{"jsonrpc":"2.0","id":1,"method":"x","params":3}`, CodeInvalidRequest, "1", ""},
		{"top-level string", `"hello"`, CodeInvalidRequest, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Decode([]byte(tt.body))
			if tt.wantCode == 0 {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				got := map[bool]string{true: "request"}[m.IsRequest()] + map[bool]string{true: "notification"}[m.IsNotification()] + map[bool]string{true: "response"}[m.IsResponse()]
				if got != tt.kind {
					t.Errorf("kind = %q, want %q", got, tt.kind)
				}
			} else {
				var je *Error
				if !errors.As(err, &je) || je.Code != tt.wantCode {
					t.Fatalf("err = %v, want code %d", err, tt.wantCode)
				}
			}
			if m != nil && m.ID.Raw() != tt.wantID {
				t.Errorf("id = %q, want %q", m.ID.Raw(), tt.wantID)
			}
		})
	}
}

func TestDecodeRefusesBatch(t *testing.T) {
	if _, err := Decode([]byte(` [{"jsonrpc":"2.0","method":"x"}]`)); !errors.Is(err, ErrBatch) {
		t.Fatalf("err = %v, want ErrBatch", err)
	}
}

func TestDecodeBatch(t *testing.T) {
	msgs, errs, isBatch, err := DecodeBatch([]byte(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"bad":1},[]]`))
	if err != nil || !isBatch || len(msgs) != 4 {
		t.Fatalf("DecodeBatch = %d msgs, batch %v, err %v", len(msgs), isBatch, err)
	}
	if errs[0] != nil || errs[1] != nil || errs[2] == nil || errs[3] == nil {
		t.Errorf("per-message errors = %v", errs)
	}
	if _, _, _, err := DecodeBatch([]byte(`[]`)); err == nil {
		t.Error("empty batch accepted")
	}
}

func TestEncodeEchoesID(t *testing.T) {
	m, err := Decode([]byte(`{"jsonrpc":"2.0","id":"x\"y","method":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewResponse(m.ID, []byte(`{}`)).Encode()
	if string(b) != `{"jsonrpc":"2.0","id":"x\"y","result":{}}` {
		t.Errorf("encoded %s", b)
	}
	b, _ = NewError(ID{}, Errorf(CodeParseError, "bad")).Encode()
	if string(b) != `{"jsonrpc":"2.0","error":{"code":-32700,"message":"bad"}}` {
		t.Errorf("encoded %s", b)
	}
}

// FuzzDecode checks that any body decodes without panicking, and that a
// message that decodes cleanly re-encodes to a message that decodes to the
// same kind and id.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"x","params":{}}`, `[{"jsonrpc":"2.0","method":"n"}]`, `{"jsonrpc":"2.0","id":"a","result":{}}`, `{"jsonrpc":"2.0","id":"<&> ","result":{"h":"<b>"}}`, `{`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		m, err := Decode(body)
		msgs, _, isBatch, berr := DecodeBatch(body)
		if berr == nil && err == nil && m == nil {
			t.Fatal("nil message without error")
		}
		// The bounded decode counts a batch's members as the full one
		// decodes them: refused past the count, the same below it.
		if isBatch && berr == nil {
			n := len(msgs)
			if _, _, _, e := DecodeBatchMax(body, n); e != nil {
				t.Fatalf("batch of %d refused at max %d: %v", n, n, e)
			}
			if _, _, _, e := DecodeBatchMax(body, n-1); n > 1 && !isInvalidRequest(e) {
				t.Fatalf("batch of %d at max %d: %v", n, n-1, e)
			}
		}
		if err != nil {
			return
		}
		b, err := m.Encode()
		if err != nil {
			t.Fatalf("Encode: %v", err)
		}
		m2, err := Decode(b)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", b, err)
		}
		if m2.ID != m.ID || m2.Method != m.Method || m2.IsResponse() != m.IsResponse() {
			t.Fatalf("round trip changed %s", b)
		}
	})
}

func isInvalidRequest(err error) bool {
	var je *Error
	return errors.As(err, &je) && je.Code == CodeInvalidRequest
}

// TestDecodeBatchMax: a batch of more members than allowed is refused with
// -32600 before any member is decoded, whatever the members hold (commas
// in strings, nested arrays and objects do not count); a body that is not
// JSON gets the parse error it gets without a bound.
func TestDecodeBatchMax(t *testing.T) {
	for _, tc := range []struct {
		body string
		n    int
	}{
		{`[1]`, 1},
		{` [ 1 , 2 ] `, 2},
		{`[{"a":[1,2,3],"b":{"c":1,"d":2}},"x,y,\",z",[[],[1,2]]]`, 3},
		{`[ ]`, 0},
		{`[[]]`, 1},
	} {
		msgs, _, _, err := DecodeBatch([]byte(tc.body))
		if tc.n == 0 {
			if err == nil {
				t.Errorf("%s: empty batch decoded", tc.body)
			}
			continue
		}
		if err != nil || len(msgs) != tc.n {
			t.Fatalf("%s: %d members, %v", tc.body, len(msgs), err)
		}
		if _, _, _, err := DecodeBatchMax([]byte(tc.body), tc.n); err != nil {
			t.Errorf("%s at max %d: %v", tc.body, tc.n, err)
		}
		if _, _, _, err := DecodeBatchMax([]byte(tc.body), tc.n-1); tc.n > 1 && !isInvalidRequest(err) {
			t.Errorf("%s at max %d: %v, want -32600", tc.body, tc.n-1, err)
		}
	}
	_, _, _, err := DecodeBatchMax([]byte(`[1,2,3`), 1)
	var je *Error
	if !errors.As(err, &je) || je.Code != CodeParseError {
		t.Errorf("unterminated batch: %v, want -32700", err)
	}
}

// TestNullIDEncodes: an error answering an unreadable id says "id":null on
// both encoding paths, where the zero ID leaves it out.
func TestNullIDEncodes(t *testing.T) {
	for _, e := range []*Error{Errorf(CodeInvalidRequest, "bad"), {Code: CodeInvalidRequest, Message: "bad", Data: []byte(`{"a":1}`)}} {
		b, err := NewError(NullID(), e).Encode()
		if err != nil || !bytes.Contains(b, []byte(`"id":null`)) {
			t.Errorf("NullID: %s %v", b, err)
		}
		if b, _ := NewError(ID{}, e).Encode(); bytes.Contains(b, []byte(`"id"`)) {
			t.Errorf("zero ID: %s", b)
		}
	}
}

// TestDecodeCaseFoldedMembers: member names are exact ("JSONRPC" is not
// "jsonrpc"), although encoding/json, the slow path, folds case.
func TestDecodeCaseFoldedMembers(t *testing.T) {
	for _, body := range []string{
		`{"JSONRPC":"2.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","ID":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","Params":{}}`,
		`{"jsonrpc":"2.0","id":1,"Result":{}}`,
	} {
		_, err := Decode([]byte(body))
		var e *Error
		if !errors.As(err, &e) || e.Code != CodeInvalidRequest {
			t.Errorf("Decode(%s) = %v, want -32600", body, err)
		}
	}
	if _, err := Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"x","Name":"y"}`)); err != nil {
		t.Errorf("a member that is no JSON-RPC name: %v", err)
	}
}

// TestParseIDRefusesNonJSON: ParseID documents that it reads an id
// "from its JSON form" and accepts only strings and integers; a bare "-",
// leading zeros or non-JSON whitespace are not JSON at all.
func TestParseIDRefusesNonJSON(t *testing.T) {
	for _, raw := range []string{"-", "01", "-007", "00", "\u00a01", "\v2"} {
		if json.Valid([]byte(raw)) {
			t.Fatalf("%q is valid JSON; test is wrong", raw)
		}
		id, err := ParseID(json.RawMessage(raw))
		if err == nil {
			_, encErr := NewResponse(id, json.RawMessage(`{}`)).Encode()
			t.Errorf("ParseID(%q) = %q, nil; want an error (Encode of a response with it: %v)", raw, id.Raw(), encErr)
		}
	}
}

// TestDecodeErrorEchoesExactID: the id an error response echoes is the
// message's exact "id" member, never a case-folded "ID" (encoding/json lets
// the later one win, and the error once echoed an id the client never sent
// as "id", or null instead of its own).
func TestDecodeErrorEchoesExactID(t *testing.T) {
	for _, tc := range []struct {
		body, wantID string
	}{
		{`{"jsonrpc":"2.0","id":1,"ID":2,"method":"x"}`, "1"},
		{`{"jsonrpc":"2.0","id":1,"iD":null,"method":"x"}`, "1"},
		{`{"jsonrpc":"2.0","id":1,"ID":2,"method":5}`, "1"},
	} {
		m, err := Decode([]byte(tc.body))
		var je *Error
		if !errors.As(err, &je) || je.Code != CodeInvalidRequest {
			t.Fatalf("Decode(%s) err = %v, want invalid request", tc.body, err)
		}
		if m == nil {
			t.Fatalf("Decode(%s): nil message", tc.body)
		}
		got := m.ID.Raw()
		if m.ID.null {
			got = "null"
		}
		if got != tc.wantID {
			t.Errorf("Decode(%s): error would echo id %s, the request's \"id\" is %s", tc.body, got, tc.wantID)
		}
	}
}

// TestIDKey: ids written differently that are the same JSON value have
// the same Key; others do not; Raw keeps what was received.
func TestIDKey(t *testing.T) {
	same := [][]string{
		{`"a"`, `"\u0061"`},
		{`"é"`, `"\u00e9"`},
		{`"<&>"`, `"\u003c\u0026\u003e"`},
		{`0`, `-0`},
	}
	for _, pair := range same {
		a, err1 := ParseID(json.RawMessage(pair[0]))
		b, err2 := ParseID(json.RawMessage(pair[1]))
		if err1 != nil || err2 != nil || a.Key() != b.Key() {
			t.Errorf("Key(%s) = %q, Key(%s) = %q (%v %v), want equal", pair[0], a.Key(), pair[1], b.Key(), err1, err2)
		}
		if b.Raw() != pair[1] {
			t.Errorf("Raw = %s, want %s as received", b.Raw(), pair[1])
		}
	}
	plain, number := StringID("req-1"), Int64ID(42)
	if n := testing.AllocsPerRun(100, func() { _, _ = plain.Key(), number.Key() }); n != 0 {
		t.Errorf("Key of a plain string and a number: %v allocations, want 0", n)
	}
	for _, pair := range [][]string{{`"1"`, `1`}, {`"a"`, `"A"`}, {`1`, `10`}} {
		a, _ := ParseID(json.RawMessage(pair[0]))
		b, _ := ParseID(json.RawMessage(pair[1]))
		if a.Key() == b.Key() {
			t.Errorf("Key(%s) = Key(%s) = %q, want different", pair[0], pair[1], a.Key())
		}
	}
}
