package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// linkRe finds the targets of inline Markdown links, [text](target).
var linkRe = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// brokenLinks returns a problem for each relative link of a Markdown file
// whose target does not exist. Links with a scheme, and anchors within
// the file, are not followed; code blocks are skipped.
func brokenLinks(file, doc string) []string {
	var problems []string
	inCode := false
	for i, line := range strings.Split(doc, "\n") {
		if fenceRe.MatchString(line) {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(file), filepath.FromSlash(target))); err != nil {
				problems = append(problems, fmt.Sprintf("%s:%d: link to %s: no such file", file, i+1, m[1]))
			}
		}
	}
	return problems
}
