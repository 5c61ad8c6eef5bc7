package auth

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestChallengeString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Challenge
		want string
	}{
		{Challenge{}, "Bearer"},
		{
			Challenge{ResourceMetadata: testPRM, Scopes: []string{"a", "b"}},
			`Bearer resource_metadata="` + testPRM + `", scope="a b"`,
		},
		{
			Challenge{Realm: "mcp", Error: CodeInvalidToken, Description: "token expired", ResourceMetadata: testPRM},
			`Bearer realm="mcp", error="invalid_token", error_description="token expired", resource_metadata="` + testPRM + `"`,
		},
		{
			Challenge{Error: CodeInsufficientScope, Description: "needs \"admin\"\r\nX-Injected: 1", Scopes: []string{"admin"}},
			`Bearer error="insufficient_scope", error_description="needs adminX-Injected: 1", scope="admin"`,
		},
	}
	for _, tc := range tests {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("String() =\n %s\nwant\n %s", got, tc.want)
		}
	}
	long := Challenge{Error: CodeInvalidToken, Description: strings.Repeat("x", 500)}
	if d := parseChallenge(t, long.String())["error_description"]; len(d) != maxDescription {
		t.Errorf("description length = %d, want %d", len(d), maxDescription)
	}
}

func TestChallengeStatus(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]int{
		"":                    401,
		CodeInvalidToken:      401,
		CodeInvalidRequest:    400,
		CodeInsufficientScope: 403,
	} {
		c := Challenge{Error: code}
		if got := c.Status(); got != want {
			t.Errorf("Status(%q) = %d, want %d", code, got, want)
		}
	}
}

func TestWriteChallengeFromOptions(t *testing.T) {
	t.Parallel()
	opts := &Options{ResourceMetadataURL: testPRM, Realm: "mcp"}
	w := httptest.NewRecorder()
	WriteChallenge(w, opts.Challenge(CodeInsufficientScope, "tool needs admin", "admin", "admin", "files:read"))
	if w.Code != http.StatusForbidden {
		t.Fatalf("status = %d", w.Code)
	}
	ch := parseChallenge(t, w.Header().Get("WWW-Authenticate"))
	if ch["scope"] != "admin files:read" || ch["resource_metadata"] != testPRM || ch["realm"] != "mcp" {
		t.Errorf("challenge = %v", ch)
	}
	if got := strings.TrimSpace(w.Body.String()); got != `{"error":"insufficient_scope","error_description":"tool needs admin","scope":"admin files:read"}` {
		t.Errorf("body = %s", got)
	}
	if (*Options)(nil).Challenge("", "").String() != "Bearer" {
		t.Error("nil options must give the bare challenge")
	}
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		headers []string
		token   string
		err     error
	}{
		{nil, "", ErrNoToken},
		{[]string{""}, "", ErrNoToken},
		{[]string{"Basic dXNlcjpwYXNz"}, "", ErrNoToken},
		{[]string{"DPoP abc"}, "", ErrNoToken},
		{[]string{"Bearer abc.def-ghi_jkl~mno+pqr/stu=="}, "abc.def-ghi_jkl~mno+pqr/stu==", nil},
		{[]string{"bEaReR   abc"}, "abc", nil},
		{[]string{"Bearer"}, "", ErrInvalidRequest},
		{[]string{"Bearer abc def"}, "", ErrInvalidRequest},
		{[]string{"Bearer abc,"}, "", ErrInvalidRequest},
		{[]string{"Bearer ==="}, "", ErrInvalidRequest},
		{[]string{"Bearer a=b"}, "", ErrInvalidRequest},
		{[]string{"Bearer a", "Bearer a"}, "", ErrInvalidRequest},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodGet, "/mcp?access_token=abc", nil)
		for _, h := range tc.headers {
			r.Header.Add("Authorization", h)
		}
		token, err := BearerToken(r)
		if token != tc.token || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("%q: got %q, %v; want %q, %v", tc.headers, token, err, tc.token, tc.err)
		}
	}
}

func TestErrorTypes(t *testing.T) {
	t.Parallel()
	cause := errors.New("cause")
	inv := InvalidToken("token expired", cause)
	if !errors.Is(inv, ErrInvalidToken) || !errors.Is(inv, cause) || errors.Is(inv, ErrUnavailable) {
		t.Errorf("InvalidToken matching is wrong: %v", inv)
	}
	if inv.Error() != "auth: invalid token: token expired: cause" {
		t.Errorf("Error() = %q", inv.Error())
	}
	un := Unavailable(0, cause)
	if !errors.Is(un, ErrUnavailable) || !errors.Is(un, cause) || errors.Is(un, ErrInvalidToken) {
		t.Errorf("Unavailable matching is wrong: %v", un)
	}
}
