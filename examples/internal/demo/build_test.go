package demo_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// goCmd runs the go command at the module root.
func goCmd(t *testing.T, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the go command")
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestExamplesBuild builds every example command.
func TestExamplesBuild(t *testing.T) {
	t.Parallel()
	goCmd(t, "build", "./examples/...")
}

// TestCoreImportsNoRouter checks that the core packages depend on no
// router: gin and chi come in only through their adapters.
func TestCoreImportsNoRouter(t *testing.T) {
	t.Parallel()
	deps := goCmd(t, "list", "-deps", "./httptransport", "./auth", "./sse", "./jsonrpc", "./identity")
	for _, dep := range strings.Fields(deps) {
		if strings.HasPrefix(dep, "github.com/gin-gonic/") || strings.HasPrefix(dep, "github.com/go-chi/") {
			t.Errorf("a core package depends on %s", dep)
		}
	}
}
