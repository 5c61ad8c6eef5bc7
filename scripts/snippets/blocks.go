package main

import (
	"regexp"
	"strings"
)

// block is one ```go fenced block of a Markdown file.
type block struct {
	file string   // the Markdown file
	line int      // the line of the block's first code line, from 1
	code []string // the block's lines, without the fences
}

var (
	fromRe    = regexp.MustCompile(`^//\s*from\s+(\S+)\s*$`)
	packageRe = regexp.MustCompile(`^package\s+main\s*$`)
	fenceRe   = regexp.MustCompile("^(\\s*)(```+|~~~+)\\s*(\\S*)")
)

// extract returns the ```go blocks of a Markdown document. Blocks in
// other languages, and lines inside them, are skipped.
func extract(file, doc string) []block {
	var out []block
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceRe.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		fence, lang := m[2], strings.ToLower(m[3])
		end := i + 1
		for end < len(lines) && !isClosing(lines[end], fence) {
			end++
		}
		if lang == "go" {
			b := block{file: file, line: i + 2}
			for _, l := range lines[i+1 : min(end, len(lines))] {
				b.code = append(b.code, strings.TrimSuffix(l, "\r"))
			}
			out = append(out, b)
		}
		i = end
	}
	return out
}

// isClosing reports whether line closes a block opened by fence.
func isClosing(line, fence string) bool {
	t := strings.TrimSpace(line)
	return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
}

// from is the repository file a block says it is taken from, or "".
func (b block) from() string {
	for _, l := range b.code {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if m := fromRe.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			return m[1]
		}
		return ""
	}
	return ""
}

// isProgram reports whether the block is a whole main package.
func (b block) isProgram() bool {
	for _, l := range b.code {
		if packageRe.MatchString(strings.TrimSpace(l)) {
			return true
		}
	}
	return false
}

// body is the block's code after its "// from" line.
func (b block) body() []string {
	for i, l := range b.code {
		if fromRe.MatchString(strings.TrimSpace(l)) {
			return b.code[i+1:]
		}
	}
	return b.code
}

// contains reports whether want's lines appear in file's lines, in order
// and contiguous, compared without surrounding spaces. A line "// ..." in
// want skips any number of file lines; blank lines at want's ends are
// ignored. It returns the line (from 1) where the match starts.
func contains(file, want []string) (int, bool) {
	var w []string
	for _, l := range want {
		w = append(w, strings.TrimSpace(l))
	}
	for len(w) > 0 && w[0] == "" {
		w = w[1:]
	}
	for len(w) > 0 && w[len(w)-1] == "" {
		w = w[:len(w)-1]
	}
	if len(w) == 0 {
		return 0, false
	}
	f := make([]string, len(file))
	for i, l := range file {
		f[i] = strings.TrimSpace(l)
	}
	for start := range f {
		if f[start] == w[0] && matchFrom(f, start, w) {
			return start + 1, true
		}
	}
	return 0, false
}

// matchFrom reports whether w matches f from line i on.
func matchFrom(f []string, i int, w []string) bool {
	if len(w) == 0 {
		return true
	}
	if w[0] == "// ..." {
		for j := i; j <= len(f); j++ {
			if matchFrom(f, j, w[1:]) {
				return true
			}
		}
		return false
	}
	return i < len(f) && f[i] == w[0] && matchFrom(f, i+1, w[1:])
}
