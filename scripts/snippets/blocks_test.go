package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtract finds the Go blocks of a document, with the line of their
// first code line, and skips blocks in other languages.
func TestExtract(t *testing.T) {
	doc := strings.Join([]string{
		"# title",         // 1
		"```sh",           // 2
		"```go inside sh", // 3: not a fence's start inside a block
		"```",             // 4
		"```go",           // 5
		"package main",    // 6
		"func main() {}",  // 7
		"```",             // 8
		"````Go",          // 9
		"// from a/b.go",  // 10
		"```",             // 11: shorter than the opening fence
		"````",            // 12
	}, "\n")
	got := extract("x.md", doc)
	if len(got) != 2 {
		t.Fatalf("found %d blocks, want 2: %+v", len(got), got)
	}
	if got[0].line != 6 || !got[0].isProgram() || got[0].from() != "" {
		t.Errorf("first block: line %d, program %v, from %q; want 6, true, none", got[0].line, got[0].isProgram(), got[0].from())
	}
	if got[1].line != 10 || got[1].from() != "a/b.go" || len(got[1].body()) != 1 {
		t.Errorf("second block: line %d, from %q, body %q; want 10, a/b.go, one line", got[1].line, got[1].from(), got[1].body())
	}
}

// TestContains matches a block against a file's lines, whatever the
// indentation, with "// ..." skipping lines, and refuses lines out of
// order or with a gap.
func TestContains(t *testing.T) {
	file := []string{"func f() {", "\ta := 1", "\tb := 2", "\tc := 3", "}"}
	cases := []struct {
		want []string
		line int
		ok   bool
	}{
		{[]string{"a := 1", "b := 2"}, 2, true},
		{[]string{"", "  a := 1", "", ""}, 2, true},
		{[]string{"func f() {", "// ...", "}"}, 1, true},
		{[]string{"a := 1", "c := 3"}, 0, false},
		{[]string{"b := 2", "a := 1"}, 0, false},
		{[]string{"a := 1", "// ...", "d := 4"}, 0, false},
		{[]string{""}, 0, false},
	}
	for _, c := range cases {
		line, ok := contains(file, c.want)
		if line != c.line || ok != c.ok {
			t.Errorf("contains(%q) = %d, %v; want %d, %v", c.want, line, ok, c.line, c.ok)
		}
	}
}

// TestBrokenLinks reports relative links to missing files, and leaves
// alone links with a scheme, anchors, existing files and code blocks.
func TestBrokenLinks(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "there.md"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	doc := strings.Join([]string{
		"[a](there.md) [b](there.md#part) [c](https://example.com/x) [d](#top)",
		"[e](missing.md)",
		"```sh",
		"[f](also-missing.md)",
		"```",
	}, "\n")
	got := brokenLinks(filepath.Join(dir, "doc.md"), doc)
	if len(got) != 1 || !strings.Contains(got[0], "doc.md:2: link to missing.md") {
		t.Errorf("brokenLinks = %q; want one problem, for missing.md on line 2", got)
	}
}
