package stdio

import (
	"log/slog"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// Command is the stdio MCP server to run: a program, its arguments, its
// environment and its working directory.
type Command struct {
	// Path is the program to run, looked up in PATH when it has no
	// slash (exec.LookPath).
	Path string
	// Args are the arguments after the program's name.
	Args []string
	// Env is the child's whole environment, "KEY=value" each. Nil means
	// the environment of this process.
	Env []string
	// Dir is the child's working directory. Empty means this process's.
	Dir string
}

// Options configures an Engine. A nil *Options means defaults.
type Options struct {
	// Logger receives the engine's logs and the child's stderr, line by
	// line (Info, key "stderr"). Nil means slog.Default(). The engine's
	// Info, Warn and Error lines of each kind (a child's non-JSON output,
	// a session refused a child, a restart) are written at most 10 a
	// minute, the next one let through saying how many were
	// "suppressed"; what they hold of the child's output or a request is
	// quoted and cut. The child's stderr has a bound of its own
	// (StderrLineBytes, StderrBytesPerSecond).
	Logger *slog.Logger

	// ChildPerSession runs one child for each 2025-era and 2024-11-05
	// session, initialized with the session's own initialize request, so
	// that the child's server-to-client requests (sampling, elicitation,
	// roots) reach that session's client. Default false: every call
	// shares one child, which is told the client has no capabilities and
	// whose server-to-client requests are refused. 2026-07-28 and
	// stateless calls always use the shared child. See the package doc.
	ChildPerSession bool

	// MaxSessionChildren bounds the children of ChildPerSession running at
	// once: a session initialized past it gets -32000, and no session.
	// Default 32.
	MaxSessionChildren int

	// MaxLineBytes bounds one line (one JSON-RPC message) the child
	// writes on stdout. A child that writes a longer line is stopped and
	// restarted, and its calls in flight fail. Default 16 MiB.
	MaxLineBytes int

	// StderrLineBytes bounds what is logged of one line of the child's
	// stderr; the rest of the line is dropped. Default 2 KiB.
	StderrLineBytes int

	// StderrBytesPerSecond bounds what is logged of the child's stderr
	// each second; the lines past it are counted and the count logged.
	// Default 64 KiB.
	StderrBytesPerSecond int

	// StartTimeout bounds a child's start and initialize handshake.
	// Default 30 s.
	StartTimeout time.Duration

	// StopTimeout is how long a stop waits after closing the child's
	// stdin before SIGTERM, and after SIGTERM before SIGKILL. Default 5 s.
	StopTimeout time.Duration

	// MinBackoff and MaxBackoff bound the wait before a crashed child is
	// restarted: it doubles from MinBackoff at each crash up to
	// MaxBackoff, and starts over once a child stayed up for a minute.
	// Defaults 100 ms and 30 s.
	MinBackoff, MaxBackoff time.Duration
}

// config is Options with the defaults filled in.
type config struct {
	log              *logval.Logger
	perSession       bool
	maxChildren      int
	maxLine          int
	stderrLine       int
	stderrRate       int
	startTimeout     time.Duration
	stopTimeout      time.Duration
	minBack, maxBack time.Duration
}

func newConfig(o *Options) config {
	c := config{
		maxLine:      16 << 20,
		maxChildren:  32,
		stderrLine:   2 << 10,
		stderrRate:   64 << 10,
		startTimeout: 30 * time.Second,
		stopTimeout:  5 * time.Second,
		minBack:      100 * time.Millisecond,
		maxBack:      30 * time.Second,
	}
	if o == nil {
		c.log = logval.NewLogger(nil)
		return c
	}
	c.log = logval.NewLogger(o.Logger)
	c.perSession = o.ChildPerSession
	if o.MaxSessionChildren > 0 {
		c.maxChildren = o.MaxSessionChildren
	}
	if o.MaxLineBytes > 0 {
		c.maxLine = o.MaxLineBytes
	}
	if o.StderrLineBytes > 0 {
		c.stderrLine = o.StderrLineBytes
	}
	if o.StderrBytesPerSecond > 0 {
		c.stderrRate = o.StderrBytesPerSecond
	}
	if o.StartTimeout > 0 {
		c.startTimeout = o.StartTimeout
	}
	if o.StopTimeout > 0 {
		c.stopTimeout = o.StopTimeout
	}
	if o.MinBackoff > 0 {
		c.minBack = o.MinBackoff
	}
	if o.MaxBackoff > 0 {
		c.maxBack = o.MaxBackoff
	}
	if c.maxBack < c.minBack {
		c.maxBack = c.minBack
	}
	return c
}
