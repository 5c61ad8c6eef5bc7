package logval

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStringShortValuesAreQuotedWhole(t *testing.T) {
	for _, s := range []string{"", "abc", strings.Repeat("x", MaxLen)} {
		if got, want := String(s), strconv.Quote(s); got != want {
			t.Errorf("String(%d bytes) = %s, want %s", len(s), got, want)
		}
	}
}

func TestStringLongValueIsCutAndMeasured(t *testing.T) {
	s := strings.Repeat("k", 700*1024)
	got := String(s)
	want := `"` + strings.Repeat("k", MaxLen) + `…" (716800 bytes)`
	if got != want {
		t.Fatalf("String(700 KiB) = %s, want %s", got, want)
	}
}

// TestStringCutsOnRuneBoundary: a rune straddling the MaxLen-th byte is
// left out whole, never split into an invalid byte sequence.
func TestStringCutsOnRuneBoundary(t *testing.T) {
	for pad := range 4 {
		s := strings.Repeat("a", MaxLen-pad) + strings.Repeat("€", 30) // € is 3 bytes
		got := String(s)
		unq, err := strconv.Unquote(strings.SplitN(got, " (", 2)[0])
		if err != nil {
			t.Fatalf("pad %d: %s is not one quoted string: %v", pad, got, err)
		}
		if !utf8.ValidString(unq) {
			t.Fatalf("pad %d: %s cut a rune", pad, got)
		}
		body := strings.TrimSuffix(unq, "…")
		if len(body) > MaxLen || len(body) < MaxLen-2 || !strings.HasPrefix(s, body) {
			t.Errorf("pad %d: kept %q (%d bytes), want the longest whole-rune prefix of at most %d", pad, body, len(body), MaxLen)
		}
		if !strings.HasSuffix(got, " ("+strconv.Itoa(len(s))+" bytes)") {
			t.Errorf("pad %d: %s does not note the length %d", pad, got, len(s))
		}
	}
}

// TestStringEscapesControlCharacters: a value cannot end the log line or
// start a forged one, nor send a terminal escape.
func TestStringEscapesControlCharacters(t *testing.T) {
	s := "sid\nlevel=ERROR msg=\"forged\"\r\x1b[2J\x00"
	got := String(s)
	if strings.ContainsAny(got, "\n\r\x1b\x00") {
		t.Fatalf("String kept a control character: %q", got)
	}
	if got != `"sid\nlevel=ERROR msg=\"forged\"\r\x1b[2J\x00"` {
		t.Errorf("String = %s", got)
	}
	if got := String("\xff\xfe"); got != `"\xff\xfe"` {
		t.Errorf("invalid UTF-8: String = %s", got)
	}
}

func TestErrBoundsTheMessage(t *testing.T) {
	if got := Err(nil); got != "<nil>" {
		t.Errorf("Err(nil) = %s", got)
	}
	if got := Err(errors.New("short\nerr")); got != `"short\nerr"` {
		t.Errorf("Err(short) = %s", got)
	}
	long := errors.New(`look up signing key "` + strings.Repeat("k", 700*1024) + `": not in the JWK Set`)
	got := Err(long)
	if !strings.HasPrefix(got, `"look up signing key \"kkk`) || !strings.HasSuffix(got, " bytes)") || len(got) > MaxErrLen+40 {
		t.Errorf("Err(700 KiB) = %s (%d bytes)", got, len(got))
	}
}
