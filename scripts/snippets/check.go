package main

import (
	"bytes"
	"fmt"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// checker checks blocks against the repository at root.
type checker struct {
	root    string
	modules []module        // nested first: the longest path wins
	inputs  map[string]bool // the Markdown files checked, cleaned, relative to root
}

// module is a Go module of the repository.
type module struct {
	path string // module path, from go.mod
	dir  string // absolute directory
}

// check returns one message per problem found in blocks.
func (c *checker) check(blocks []block) []string {
	var problems []string
	if err := c.findModules(); err != nil {
		return []string{err.Error()}
	}
	c.inputs = map[string]bool{}
	for _, b := range blocks {
		c.inputs[c.relToRoot(b.file)] = true
	}
	vet := map[string]*vetTarget{} // by package directory
	for i, b := range blocks {
		where := fmt.Sprintf("%s:%d", b.file, b.line)
		switch {
		case strings.HasSuffix(b.from(), ".md"):
			if p := c.checkDocPart(b); p != "" {
				problems = append(problems, where+": "+p)
			}
		case b.from() != "":
			p, dir := c.checkPart(b)
			if p != "" {
				problems = append(problems, where+": "+p)
				continue
			}
			if t := vet[dir]; t != nil {
				t.blocks = append(t.blocks, where)
			} else {
				vet[dir] = &vetTarget{dir: dir, blocks: []string{where}}
			}
		case b.isProgram():
			problems = append(problems, c.build(i, b)...)
		default:
			problems = append(problems, where+": neither a complete program (package main) nor marked as taken from a file (a first line \"// from path/to/file.go\")")
		}
	}
	dirs := make([]string, 0, len(vet))
	for d := range vet {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if p := c.vet(vet[d]); p != "" {
			problems = append(problems, p)
		}
	}
	return problems
}

// vetTarget is a package that blocks were taken from.
type vetTarget struct {
	dir    string   // absolute package directory
	blocks []string // file:line of the blocks taken from it
}

// checkPart checks that a "// from" block appears in its file, returning
// a problem or the file's package directory.
func (c *checker) checkPart(b block) (problem, dir string) {
	rel := b.from()
	name := filepath.Join(c.root, filepath.FromSlash(rel))
	if !strings.HasSuffix(rel, ".go") {
		return fmt.Sprintf("%q is neither a Go file nor a Markdown file", rel), ""
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return fmt.Sprintf("the block says it is taken from %s: %v", rel, err), ""
	}
	if _, ok := contains(strings.Split(string(data), "\n"), b.body()); !ok {
		return fmt.Sprintf("the block's lines do not appear, in order and contiguous, in %s (a line \"// ...\" may skip lines)", rel), ""
	}
	return "", filepath.Dir(name)
}

// checkDocPart checks that a block marked "// from doc.md" appears in one
// of that document's complete programs, which are built when the document
// is among the files checked (it must be).
func (c *checker) checkDocPart(b block) string {
	rel := b.from()
	data, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Sprintf("the block says it is taken from %s: %v", rel, err)
	}
	if !c.inputs[filepath.Clean(filepath.FromSlash(rel))] {
		return fmt.Sprintf("the block is taken from %s, which is not among the files checked", rel)
	}
	for _, src := range extract(rel, string(data)) {
		if !src.isProgram() {
			continue
		}
		if _, ok := contains(src.code, b.body()); ok {
			return ""
		}
	}
	return fmt.Sprintf("the block's lines do not appear, in order and contiguous, in a complete program of %s", rel)
}

// relToRoot is a file name as given, made relative to the root.
func (c *checker) relToRoot(name string) string {
	abs, err := filepath.Abs(name)
	if err != nil {
		return filepath.Clean(name)
	}
	return relPath(c.root, abs)
}

// vet runs go vet on a package blocks were taken from, which compiles it
// and its tests.
func (c *checker) vet(t *vetTarget) string {
	m := c.moduleOfDir(t.dir)
	rel, _ := filepath.Rel(m.dir, t.dir)
	out, err := goCmd(m.dir, "vet", "./"+filepath.ToSlash(rel))
	if err != nil {
		return fmt.Sprintf("%s: go vet of %s, which %s are taken from, failed: %v\n%s",
			t.blocks[0], relPath(c.root, t.dir), strings.Join(t.blocks, ", "), err, out)
	}
	return ""
}

var errPosRe = regexp.MustCompile(`(?:\./)?_snippets_\d+/s\d+/main\.go:(\d+)`)

// build writes a program block into a temporary package of the module its
// imports need, builds it and checks its formatting.
func (c *checker) build(n int, b block) []string {
	where := fmt.Sprintf("%s:%d", b.file, b.line)
	src := strings.Join(b.code, "\n") + "\n"
	var problems []string
	if formatted, err := format.Source([]byte(src)); err == nil && !bytes.Equal(formatted, []byte(src)) {
		problems = append(problems, where+": the program is not gofmt-formatted")
	}
	m := c.moduleFor(src)
	tmp := filepath.Join(m.dir, fmt.Sprintf("_snippets_%d", os.Getpid()))
	pkg := filepath.Join(tmp, "s"+strconv.Itoa(n))
	defer os.RemoveAll(tmp)
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		return append(problems, where+": "+err.Error())
	}
	if err := os.WriteFile(filepath.Join(pkg, "main.go"), []byte(src), 0o644); err != nil {
		return append(problems, where+": "+err.Error())
	}
	bin, err := os.MkdirTemp("", "snippets-bin-")
	if err != nil {
		return append(problems, where+": "+err.Error())
	}
	defer os.RemoveAll(bin)
	rel, _ := filepath.Rel(m.dir, pkg)
	out, err := goCmd(m.dir, "build", "-o", bin+string(filepath.Separator), "./"+filepath.ToSlash(rel))
	if err != nil {
		// Point the compiler's positions at the Markdown file.
		msg := errPosRe.ReplaceAllStringFunc(out, func(s string) string {
			l, _ := strconv.Atoi(errPosRe.FindStringSubmatch(s)[1])
			return fmt.Sprintf("%s:%d", b.file, b.line+l-1)
		})
		problems = append(problems, fmt.Sprintf("%s: the program does not build (in module %s): %v\n%s", where, m.path, err, msg))
	}
	return problems
}

// goCmd runs the go command in dir and returns its combined output.
func goCmd(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// findModules lists the repository's go.mod files, skipping node_modules
// and directories the go command ignores.
func (c *checker) findModules() error {
	err := filepath.WalkDir(c.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != c.root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || d.Name() != "go.mod" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, l := range strings.Split(string(data), "\n") {
			if f := strings.Fields(l); len(f) == 2 && f[0] == "module" {
				c.modules = append(c.modules, module{path: strings.Trim(f[1], `"`), dir: filepath.Dir(p)})
				break
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("finding the repository's modules: %w", err)
	}
	if len(c.modules) == 0 {
		return fmt.Errorf("no go.mod under %s", c.root)
	}
	sort.Slice(c.modules, func(i, j int) bool { return len(c.modules[i].path) > len(c.modules[j].path) })
	return nil
}

// moduleFor is the module a program is built in: the most nested one of
// this repository that one of its imports belongs to, else the root's.
func (c *checker) moduleFor(src string) module {
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", src, parser.ImportsOnly)
	if err == nil {
		for _, m := range c.modules {
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p == m.path || strings.HasPrefix(p, m.path+"/") {
					return m
				}
			}
		}
	}
	return c.moduleOfDir(c.root)
}

// moduleOfDir is the most nested module holding dir.
func (c *checker) moduleOfDir(dir string) module {
	var best module
	for _, m := range c.modules {
		if m.dir == c.root {
			best = m
		}
	}
	for _, m := range c.modules {
		if (dir == m.dir || strings.HasPrefix(dir, m.dir+string(filepath.Separator))) && len(m.dir) > len(best.dir) {
			best = m
		}
	}
	return best
}
