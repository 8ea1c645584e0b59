package progress

import (
	"strings"
	"testing"
	"time"
)

func newBytesTest(total int64, tty bool) (*Bar, *strings.Builder, *clock) {
	var out strings.Builder
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	b := NewBytes(&out, "fetch", total, tty)
	b.now, b.start = c.now, c.t
	b.Tick = time.Hour
	return b, &out, c
}

// TestBytes: a byte report shows bytes done of the total, the rate and the
// time left when the size is known; only bytes and the rate when not;
// piped, one summary line without control characters.
func TestBytes(t *testing.T) {
	t.Run("known size, terminal", func(t *testing.T) {
		b, out, c := newBytesTest(8<<20, true)
		for range 2 {
			c.t = c.t.Add(time.Second)
			b.Add(1 << 20)
		}
		s := out.String()
		for _, want := range []string{"\r\x1b[K", "fetch [======", "2.0 MiB of 8.0 MiB (25%)", "2s, 1.0 MiB/s, ETA 6s"} {
			if !strings.Contains(s, want) {
				t.Errorf("terminal line lacks %q:\n%q", want, s)
			}
		}
	})
	t.Run("unknown size, terminal", func(t *testing.T) {
		b, out, c := newBytesTest(-1, true)
		c.t = c.t.Add(2 * time.Second)
		b.Add(3 << 10)
		s := out.String()
		if !strings.Contains(s, "fetch 3.0 KiB  2s, 1.5 KiB/s") || strings.Contains(s, "ETA") || strings.Contains(s, " of ") {
			t.Errorf("unknown size: %q", s)
		}
	})
	t.Run("retried with the size learnt late, piped", func(t *testing.T) {
		b, out, c := newBytesTest(-1, false)
		b.Add(500) // a first attempt that fails
		c.t = c.t.Add(time.Second)
		b.Restart(2048)
		c.t = c.t.Add(4 * time.Second)
		b.Write(make([]byte, 2048))
		b.Finish()
		s := out.String()
		if s != "fetch 2.0 KiB of 2.0 KiB (100%)  4s, 512 B/s\n" {
			t.Errorf("piped output %q, want one summary line", s)
		}
	})
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 30: "5.0 GiB"} {
		if got := humanBytes(n); got != want {
			t.Errorf("humanBytes(%d) = %q, want %q", n, got, want)
		}
	}
}
