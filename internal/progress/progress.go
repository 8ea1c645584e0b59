// Package progress draws a one-line progress report for long runs: items
// done out of the total, counts per outcome, tokens and cost when there are
// any, elapsed time, the rate and an estimate of the time left.
//
// On a terminal the line is redrawn in place (carriage return and erase to
// the end of the line) on every item, at most every Interval, and at least
// every Tick even when no item finishes (a slow step still shows its clock
// moving); log lines written through [Bar.Log] appear above it. On anything
// else (a file, a pipe, CI logs) no control characters are ever written:
// the log lines, and one summary line at the end.
//
// A byte report ([NewBytes]) counts bytes instead of items (a download):
// bytes done of the total with the percentage when the size is known, the
// rate, and the time left when the size is known.
//
// The package is kept rather than replaced by a general progress-bar module
// (schollz/progressbar, mpb): a run here reports outcomes per item, tokens
// and dollars, and must print one plain summary line when not on a
// terminal; one code draws both kinds of line.
package progress

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

// Bar is a progress report. It is safe for concurrent use.
type Bar struct {
	w     io.Writer
	tty   bool
	label string
	total int64
	// bytes: done and total count bytes (NewBytes); total < 0 is unknown.
	bytes bool
	// Interval bounds terminal redraws on items; Tick is the longest a
	// terminal line goes without a redraw (defaults 200ms and 1s).
	Interval, Tick time.Duration
	now            func() time.Time
	stop           chan struct{}
	ticking        bool

	mu       sync.Mutex
	start    time.Time
	done     int64 // items (or bytes) counted, including skipped ones
	skipped  int64 // items found done already: excluded from the rate
	order    []string
	counts   map[string]int
	tokens   int
	cost     float64
	drawn    time.Time
	onLine   bool // a terminal line is drawn and not yet ended
	finished bool
}

// New returns a report of total items written to w; tty says whether w is
// a terminal (see [IsTerminal]).
func New(w io.Writer, label string, total int, tty bool) *Bar {
	return &Bar{w: w, tty: tty, label: label, total: int64(total), Interval: 200 * time.Millisecond, Tick: time.Second,
		now: time.Now, start: time.Now(), counts: map[string]int{}}
}

// NewBytes returns a report of a transfer of total bytes (negative when
// the size is not known yet; see [Bar.Restart]).
func NewBytes(w io.Writer, label string, total int64, tty bool) *Bar {
	b := New(w, label, 0, tty)
	b.bytes, b.total = true, total
	return b
}

// Add counts n bytes of a byte report.
func (b *Bar) Add(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.startTicking()
	b.done += n
	b.draw(false)
}

// Restart starts a byte report again from zero with a new total (negative:
// unknown), for a transfer that is retried or whose size is learnt late
// (an HTTP response's Content-Length). The clock starts again too.
func (b *Bar) Restart(total int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total, b.done, b.skipped, b.start = total, 0, 0, b.now()
	if b.tty {
		b.draw(true)
	}
}

// Write counts len(p) bytes, so that a byte report can sit in an
// io.MultiWriter or io.TeeReader of the transfer.
func (b *Bar) Write(p []byte) (int, error) {
	b.Add(int64(len(p)))
	return len(p), nil
}

// Start draws the line at 0 items (on a terminal) and starts the clock that
// redraws it every Tick; Step starts it too. A nil Bar does nothing, so
// that callers can pass nil for "no progress".
func (b *Bar) Start() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.startTicking()
	if b.tty {
		b.draw(true)
	}
}

// startTicking starts the redraw clock once; b.mu is held.
func (b *Bar) startTicking() {
	if !b.tty || b.ticking || b.finished {
		return
	}
	b.ticking = true
	b.stop = make(chan struct{})
	tick := time.NewTicker(b.Tick)
	go func() {
		defer tick.Stop()
		for {
			select {
			case <-b.stop:
				return
			case <-tick.C:
				b.mu.Lock()
				if !b.finished {
					b.draw(true)
				}
				b.mu.Unlock()
			}
		}
	}()
}

// IsTerminal reports whether w is a character device (a terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Step counts one item with its outcome, tokens and cost. skipped marks an
// item that needed no work (already done): it advances the count but not
// the rate the time left is estimated from.
func (b *Bar) Step(outcome string, tokens int, cost float64, skipped bool) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.startTicking()
	b.done++
	if skipped {
		b.skipped++
	}
	if _, ok := b.counts[outcome]; !ok {
		b.order = append(b.order, outcome)
		sort.Strings(b.order) // stable whatever order items finish in
	}
	b.counts[outcome]++
	b.tokens += tokens
	b.cost += cost
	b.draw(false)
}

// Log prints a line without garbling the report.
func (b *Bar) Log(format string, a ...any) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.tty && b.onLine {
		io.WriteString(b.w, "\r\x1b[K")
		b.onLine = false
	}
	fmt.Fprintf(b.w, strings.TrimRight(format, "\n")+"\n", a...)
	if b.tty && b.done > 0 {
		b.draw(true)
	}
}

// Finish prints the final line (the only one when not on a terminal) and
// stops the clock. Calling it again does nothing.
func (b *Bar) Finish() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.finished {
		return
	}
	b.finished = true
	if b.ticking {
		close(b.stop)
	}
	b.draw(true)
	if b.tty {
		io.WriteString(b.w, "\n")
		b.onLine = false
	}
}

func (b *Bar) draw(force bool) {
	now := b.now()
	if b.tty {
		if !force && (b.done < b.total || b.bytes) && now.Sub(b.drawn) < b.Interval {
			return
		}
		io.WriteString(b.w, "\r\x1b[K"+b.line(now))
		b.onLine = true
		b.drawn = now
		return
	}
	if b.finished {
		io.WriteString(b.w, b.line(now)+"\n")
	}
}

const barWidth = 24

func (b *Bar) line(now time.Time) string {
	if b.bytes {
		return b.byteLine(now)
	}
	var s strings.Builder
	if b.label != "" {
		s.WriteString(b.label + " ")
	}
	frac := 1.0
	if b.total > 0 {
		frac = float64(b.done) / float64(b.total)
	}
	if b.tty {
		n := int(frac * barWidth)
		s.WriteString("[" + strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n) + "] ")
	}
	fmt.Fprintf(&s, "%d/%d (%d%%)", b.done, b.total, int(frac*100))
	if len(b.order) > 0 {
		parts := make([]string, len(b.order))
		for i, o := range b.order {
			parts[i] = fmt.Sprintf("%s %d", o, b.counts[o])
		}
		s.WriteString("  " + strings.Join(parts, ", "))
	}
	if b.tokens > 0 || b.cost > 0 {
		fmt.Fprintf(&s, "  %s tokens  $%.2f", humanInt(b.tokens), b.cost)
	}
	elapsed := now.Sub(b.start)
	fmt.Fprintf(&s, "  %s", round(elapsed))
	worked := b.done - b.skipped
	if worked > 0 && elapsed > 0 {
		fmt.Fprintf(&s, ", %.1f/s", float64(worked)/elapsed.Seconds())
	}
	b.eta(&s, elapsed, worked)
	return s.String()
}

// eta writes the time left, estimated from the rate so far, when the total
// is known and not reached.
func (b *Bar) eta(s *strings.Builder, elapsed time.Duration, worked int64) {
	if left := b.total - b.done; left > 0 && worked > 0 && elapsed > 0 && !b.finished {
		eta := time.Duration(float64(elapsed) / float64(worked) * float64(left))
		fmt.Fprintf(s, ", ETA %s", round(eta))
	}
}

// byteLine is the line of a byte report: "12.0 MiB of 48.0 MiB (25%)  3.1s,
// 3.9 MiB/s, ETA 9.3s", without the total, percentage and ETA when the
// size is unknown.
func (b *Bar) byteLine(now time.Time) string {
	var s strings.Builder
	if b.label != "" {
		s.WriteString(b.label + " ")
	}
	known := b.total > 0
	if b.tty && known {
		n := int(min(float64(b.done)/float64(b.total), 1) * barWidth)
		s.WriteString("[" + strings.Repeat("=", n) + strings.Repeat(" ", barWidth-n) + "] ")
	}
	s.WriteString(humanBytes(b.done))
	if known {
		fmt.Fprintf(&s, " of %s (%d%%)", humanBytes(b.total), int(100*min(float64(b.done)/float64(b.total), 1)))
	}
	elapsed := now.Sub(b.start)
	fmt.Fprintf(&s, "  %s", round(elapsed))
	if b.done > 0 && elapsed > 0 {
		fmt.Fprintf(&s, ", %s/s", humanBytes(int64(float64(b.done)/elapsed.Seconds())))
	}
	b.eta(&s, elapsed, b.done)
	return s.String()
}

// humanBytes writes n bytes in binary units, three significant digits.
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %ciB", v, "KMGTP"[i])
}

func round(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

func humanInt(n int) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// LogWriter is an io.Writer of log lines that prints them above the
// progress line of Bar (Bar.Log).
type LogWriter struct{ Bar *Bar }

func (l LogWriter) Write(p []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.Bar.Log("%s", line)
	}
	return len(p), nil
}
