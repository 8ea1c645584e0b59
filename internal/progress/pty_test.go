package progress

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// movedClock is an elapsed time of a second or more on the line.
var movedClock = regexp.MustCompile(`  [1-9][0-9.]*s`)

// TestPseudoTerminalRedrawsEvery2s: on a real (pseudo-)terminal a step
// whose items are slow still redraws its line at least every 2 s, with the
// elapsed time moving, and IsTerminal recognises the terminal.
func TestPseudoTerminalRedrawsEvery2s(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	var mu sync.Mutex
	var got bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			mu.Lock()
			got.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if !IsTerminal(tty) {
		t.Fatal("IsTerminal(pty) = false")
	}
	b := New(tty, "slow", 3, IsTerminal(tty))
	b.Start()
	read := func() string {
		mu.Lock()
		defer mu.Unlock()
		return got.String()
	}
	// No item finishes until the clock has redrawn the line twice: the
	// test waits on the redraws, not for a span of wall time, so a loaded
	// machine only makes it slower (the guard is against a hang).
	for guard := time.Now().Add(2 * time.Minute); strings.Count(read(), "\r\x1b[K") < 3; {
		if time.Now().After(guard) {
			t.Fatalf("no redraw without a step in 2 minutes on a terminal:\n%q", read())
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Step("ok", 0, 0, false)
	b.Finish()
	tty.Close()
	<-done
	s := read()
	// The start, at least two ticks, the step, the finish.
	if n := strings.Count(s, "\r\x1b[K"); n < 4 {
		t.Errorf("%d redraws on a terminal, want the start, two ticks, the step and the finish:\n%q", n, s)
	}
	if !strings.Contains(s, "slow [") || !strings.Contains(s, "0/3 (0%)") || !strings.Contains(s, "1/3 (33%)") {
		t.Errorf("terminal output %q", s)
	}
	if !movedClock.MatchString(s) { // the elapsed time moved past 0 s while drawing
		t.Errorf("the clock did not move on the terminal line: %q", s)
	}
}
