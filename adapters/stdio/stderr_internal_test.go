package stdio

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpmount/mcpmount/internal/logval"
)

// secondPerBlock reads out its blocks in turn, its clock a second later at
// the start of each: a child writing a block of stderr lines a second.
type secondPerBlock struct {
	blocks [][]byte
	cur    []byte
	clock  time.Time
}

func (s *secondPerBlock) Read(p []byte) (int, error) {
	if len(s.cur) == 0 {
		if len(s.blocks) == 0 {
			return 0, io.EOF
		}
		s.cur, s.blocks = s.blocks[0], s.blocks[1:]
		s.clock = s.clock.Add(time.Second)
	}
	n := copy(p, s.cur)
	s.cur = s.cur[n:]
	return n, nil
}

func (s *secondPerBlock) now() time.Time { return s.clock }

// TestStderrDropsLogBounded: a child writing more stderr than the rate
// bound every second for a minute has its dropped lines reported at most
// logval.Burst times, not once a second.
func TestStderrDropsLogBounded(t *testing.T) {
	t.Parallel()
	block := []byte(strings.Repeat("noisy: a line of a hundred bytes or so, over and over, past the bound of five hundred a second\n", 20))
	r := &secondPerBlock{clock: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	for range 60 {
		r.blocks = append(r.blocks, block)
	}
	var buf bytes.Buffer
	log := logval.NewLogger(slog.New(slog.NewTextHandler(&buf, nil)))
	stderrLog{log: log, pid: 1, max: 2 << 10, perSecond: 500, now: r.now}.run(r)
	warned := strings.Count(buf.String(), `msg="stdio: child stderr lines dropped past the rate bound"`)
	if warned == 0 || warned > logval.Burst {
		t.Errorf("%d warnings of dropped lines in a minute of stderr past the bound, want 1 to %d", warned, logval.Burst)
	}
	if passed := strings.Count(buf.String(), `msg="stdio: child stderr"`); passed < 60 {
		t.Errorf("%d stderr lines passed on, want the bound's share of each second (at least one a second)", passed)
	}
}
