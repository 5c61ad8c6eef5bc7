package stdio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// errLineTooLong is a child's stdout line past Options.MaxLineBytes.
var errLineTooLong = errors.New("stdio: the child wrote a line past the line bound")

// proc is one run of the child process: its pipes, the goroutines reading
// stdout and stderr, and the one that waits for it (every started process
// is waited for, so none is left a zombie).
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File // our end
	stdout *os.File
	stderr *os.File

	wmu     sync.Mutex // one message at a time on stdin
	stdinMu sync.Mutex
	stdinOK bool

	exited  chan struct{} // closed once Wait returned
	waitErr error         // Wait's result, set before exited closes
	readers sync.WaitGroup
}

// startProc starts cmd with fresh pipes; onLine gets each stdout line (the
// slice is reused after it returns) and onEnd runs once stdout ended, with
// the reason (nil at EOF).
func startProc(c Command, cfg *config, onLine func([]byte), onEnd func(error)) (*proc, error) {
	cmd := exec.Command(c.Path, c.Args...)
	cmd.Env, cmd.Dir = c.Env, c.Dir
	setProcessGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("stdio: stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("stdio: stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("stdio: stderr pipe: %w", err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	if err := cmd.Start(); err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, fmt.Errorf("stdio: starting %s: %w", logval.Bound(c.Path, 200), err)
	}
	closeAll(inR, outW, errW) // the child's ends, now its own
	p := &proc{cmd: cmd, stdin: inW, stdout: outR, stderr: errR, stdinOK: true, exited: make(chan struct{})}
	p.readers.Add(2)
	go func() {
		defer p.readers.Done()
		onEnd(readLines(outR, cfg.maxLine, onLine))
	}()
	errLog := stderrLog{log: cfg.log, pid: p.pid(), max: cfg.stderrLine, perSecond: cfg.stderrRate, now: time.Now}
	go func() {
		defer p.readers.Done()
		errLog.run(errR)
	}()
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// pid is the child's process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// write sends one message line to the child, within timeout.
func (p *proc) write(line []byte, timeout time.Duration) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.stdinMu.Lock()
	ok := p.stdinOK
	p.stdinMu.Unlock()
	if !ok {
		return errors.New("stdio: the child's stdin is closed")
	}
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	_ = p.stdin.SetWriteDeadline(time.Now().Add(timeout))
	if _, err := p.stdin.Write(buf); err != nil {
		return fmt.Errorf("stdio: writing to the child: %w", err)
	}
	return nil
}

// closeStdin closes the child's stdin, which tells a stdio server to exit.
func (p *proc) closeStdin() {
	p.stdinMu.Lock()
	defer p.stdinMu.Unlock()
	if p.stdinOK {
		p.stdinOK = false
		_ = p.stdin.Close()
	}
}

// stop ends the child as the stdio transport says a client should (MCP
// basic/lifecycle, "Shutdown", stdio): close its stdin, wait, SIGTERM,
// wait, SIGKILL; then it waits for the process and the readers.
// https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#stdio
func (p *proc) stop(grace time.Duration) {
	p.closeStdin() // a write blocked on a child that does not read fails

	if !p.waitExit(grace) {
		_ = signalGroup(p.cmd, sigTerm)
		if !p.waitExit(grace) {
			_ = signalGroup(p.cmd, sigKill)
			<-p.exited
		}
	}
	p.finish()
}

// kill ends the child at once (a child found broken).
func (p *proc) kill() {
	p.closeStdin()
	_ = signalGroup(p.cmd, sigKill)
}

// finish waits for the process, then for its readers: a grandchild that
// still holds stdout or stderr open is not waited for past a second (the
// pipes are closed under it).
func (p *proc) finish() {
	<-p.exited
	done := make(chan struct{})
	go func() { p.readers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		closeAll(p.stdout, p.stderr)
		<-done
	}
	closeAll(p.stdout, p.stderr)
	p.closeStdin()
}

func (p *proc) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// readLines calls onLine for each line of r, until EOF (nil), a read error
// or a line longer than max (errLineTooLong).
func readLines(r io.Reader, max int, onLine func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(chunk) > max {
				return errLineTooLong
			}
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			if len(long)+len(chunk) > max {
				return errLineTooLong
			}
			line = append(long, chunk...)
			long = nil
		}
		if line = bytes.TrimRight(line, "\r\n"); len(bytes.TrimSpace(line)) > 0 {
			if len(line) > max {
				return errLineTooLong
			}
			onLine(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, os.ErrClosed) {
				return nil
			}
			return err
		}
	}
}

// stderrLog passes a child's stderr on to the log: each line, cut at max
// bytes, at most perSecond bytes of lines a second (the time read from
// now). The lines past that are counted, and the count logged once a line
// is logged again or stderr ends.
type stderrLog struct {
	log            *logval.Logger
	pid            int
	max, perSecond int
	now            func() time.Time
}

// run logs r's lines until it ends.
func (s stderrLog) run(r io.Reader) {
	max, perSecond := s.max, s.perSecond
	br := bufio.NewReaderSize(r, 4<<10)
	var (
		cur      []byte
		cut      bool
		budget   = perSecond
		refilled = s.now()
		skipped  int
	)
	reportSkipped := func() {
		if skipped > 0 {
			s.log.Warn("stdio: child stderr lines dropped past the rate bound", "pid", s.pid, "lines", skipped, "bytes_per_second", perSecond)
			skipped = 0
		}
	}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(cur) < max {
			room := max - len(cur)
			if len(chunk) > room {
				chunk, cut = chunk[:room], true
			}
			cur = append(cur, chunk...)
		} else if len(chunk) > 0 {
			cut = true
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if line := bytes.TrimRight(cur, "\r\n"); len(line) > 0 {
			if now := s.now(); now.Sub(refilled) >= time.Second {
				budget, refilled = perSecond, now
			}
			if budget >= len(line) {
				budget -= len(line)
				reportSkipped()
				s.log.Base().Info("stdio: child stderr", "pid", s.pid, "stderr", logval.Bound(string(line), max), "truncated", cut)
			} else {
				skipped++
			}
		}
		cur, cut = cur[:0], false
		if err != nil {
			reportSkipped()
			return
		}
	}
}
