// Command snippets checks the Go code blocks of Markdown files, so that the
// README and docs/ never show code that does not build.
//
//	go run ./scripts/snippets README.md docs/*.md
//
// Every ```go block must be one of:
//
//   - a complete program (it has a "package main" line): it is written to a
//     temporary directory inside the module its imports need (the main
//     module, or a nested one such as redisstore), built with go build and
//     checked with gofmt;
//   - a part of a file in the repository, marked by a first line
//     "// from path/to/file.go": the block's lines must appear in that file
//     in order and contiguous (compared without leading and trailing
//     spaces; a line "// ..." in the block skips any number of the file's
//     lines), and the file's package is checked with go vet, which compiles
//     it and its tests;
//   - a part of a complete program in another Markdown file checked in the
//     same run, marked "// from docs/file.md" and matched the same way.
//
// Relative links of the files ([text](docs/x.md)) must name files that
// exist. It prints each failure as file:line: what, and exits 1 if there
// was any.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	root := flag.String("root", ".", "the repository's root directory")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: snippets [-root dir] file.md ...")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	abs, err := filepath.Abs(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "snippets:", err)
		os.Exit(2)
	}
	c := &checker{root: abs}
	var (
		blocks   []block
		problems []string
	)
	for _, name := range flag.Args() {
		data, err := os.ReadFile(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "snippets:", err)
			os.Exit(2)
		}
		blocks = append(blocks, extract(name, string(data))...)
		problems = append(problems, brokenLinks(name, string(data))...)
	}
	problems = append(problems, c.check(blocks)...)
	for _, p := range problems {
		fmt.Fprintln(os.Stderr, p)
	}
	programs, parts := 0, 0
	for _, b := range blocks {
		if b.from() != "" {
			parts++
		} else if b.isProgram() {
			programs++
		}
	}
	fmt.Printf("snippets: %d Go blocks in %d files: %d programs built, %d parts of repository files; %d problems\n",
		len(blocks), flag.NArg(), programs, parts, len(problems))
	if len(problems) > 0 {
		os.Exit(1)
	}
}

// relPath is name relative to root when it lies inside it, for messages.
func relPath(root, name string) string {
	if rel, err := filepath.Rel(root, name); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return name
}
