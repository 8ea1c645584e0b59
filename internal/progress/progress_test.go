package progress

import (
	"strings"
	"testing"
	"time"
)

// clock is a fake time source advanced by the test.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newTest(tty bool) (*Bar, *strings.Builder, *clock) {
	var out strings.Builder
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := New(&out, "gen", 20, tty)
	b.now, b.start = c.now, c.t
	b.Tick = time.Hour // redraws come from the fake clock's steps only
	return b, &out, c
}

func TestNonTerminalHasNoControlCharacters(t *testing.T) {
	b, out, c := newTest(false)
	for i := range 20 {
		c.t = c.t.Add(time.Second)
		outcome := "ok"
		if i%5 == 0 {
			outcome = "failed"
		}
		b.Step(outcome, 1500, 0.01, i < 4)
		if i == 7 {
			b.Log("model m: task %d pending", i)
		}
	}
	b.Finish()
	s := out.String()
	if strings.ContainsAny(s, "\r\x1b") {
		t.Errorf("control characters in non-terminal output:\n%q", s)
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	// The log line and one summary line: nothing else when not on a terminal.
	if len(lines) != 2 || lines[0] != "model m: task 7 pending" {
		t.Errorf("%d lines:\n%s", len(lines), s)
	}
	last := lines[len(lines)-1]
	for _, want := range []string{"gen 20/20 (100%)", "failed 4, ok 16", "30k tokens", "$0.20", "20s", "0.8/s"} { // 16 worked items in 20s
		if !strings.Contains(last, want) {
			t.Errorf("final line %q lacks %q", last, want)
		}
	}
}

func TestTerminalRedrawsInPlace(t *testing.T) {
	b, out, c := newTest(true)
	b.Step("ok", 10, 0, false)
	c.t = c.t.Add(50 * time.Millisecond)
	b.Step("ok", 10, 0, false) // within the interval: not drawn
	c.t = c.t.Add(time.Second)
	b.Log("a message")
	b.Step("ok", 10, 0, false)
	b.Finish()
	s := out.String()
	if n := strings.Count(s, "\r\x1b[K"); n != 4 { // step 1, log clear, log redraw, finish (step 3 fell within the interval)
		t.Errorf("%d redraws:\n%q", n, s)
	}
	if !strings.Contains(s, "\r\x1b[Ka message\n") || !strings.HasSuffix(s, "\n") || !strings.Contains(s, "[===") {
		t.Errorf("output %q", s)
	}
}
