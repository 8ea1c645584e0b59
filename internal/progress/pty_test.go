package progress

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

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
	time.Sleep(2500 * time.Millisecond) // no item finishes meanwhile
	b.Step("ok", 0, 0, false)
	b.Finish()
	tty.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	mu.Lock()
	s := got.String()
	mu.Unlock()
	// The start, at least two ticks within 2.5 s, the step, the finish.
	if n := strings.Count(s, "\r\x1b[K"); n < 4 {
		t.Errorf("%d redraws in 2.5 s on a terminal, want a redraw at least every 2 s:\n%q", n, s)
	}
	if !strings.Contains(s, "slow [") || !strings.Contains(s, "0/3 (0%)") || !strings.Contains(s, "1/3 (33%)") {
		t.Errorf("terminal output %q", s)
	}
	if !strings.Contains(s, "  2") { // the elapsed time reached 2 s while drawing
		t.Errorf("the clock did not move on the terminal line: %q", s)
	}
}
