package mimic

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// tracker estimates a build's progress for the periodic progress line.
// DuckDB's CSV reader reports nothing while it loads, so a table's progress
// is the share of its file read (filePosition, compressed bytes), and its
// rows are estimated from the rows per byte of the file's first megabytes
// (sampleRows); a table's exact rows are known when it is committed.
type tracker struct {
	mu        sync.Mutex
	start     time.Time
	total     int64 // bytes of the files this attempt loads
	doneBytes int64
	doneRows  int64
	active    map[string]*activeLoad
}

type activeLoad struct {
	src         source
	start       time.Time
	rowsPerByte float64
	// order is the table's StoreOrder: once its file is read (open, then
	// closed), DuckDB is still sorting and writing the rows.
	order  string
	opened bool
}

func newTracker(total int64) *tracker {
	return &tracker{start: time.Now(), total: total, active: map[string]*activeLoad{}}
}

func (t *tracker) begin(table string, src source, rowsPerByte float64, order string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.active[table] = &activeLoad{src: src, start: time.Now(), rowsPerByte: rowsPerByte, order: order}
}

func (t *tracker) end(table string, rows int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a, ok := t.active[table]; ok {
		t.doneBytes += a.src.Bytes
		delete(t.active, table)
	}
	t.doneRows += rows
}

// line renders the progress of every table loading and of the whole
// attempt: share read, estimated rows and rows/s, and ETAs.
func (t *tracker) line(now time.Time) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var parts []string
	read := t.doneBytes
	estRows := float64(t.doneRows)
	names := make([]string, 0, len(t.active))
	for name := range t.active {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		a := t.active[name]
		el := now.Sub(a.start)
		pos, ok := filePosition(a.src.Abs)
		if ok {
			a.opened = true
		}
		if !ok && a.opened && a.order != "" {
			read += a.src.Bytes
			estRows += float64(a.src.Bytes) * a.rowsPerByte
			parts = append(parts, fmt.Sprintf("%s: read, storing in %s order, %v", a.src.Rel, a.order, round(el)))
			continue
		}
		if !ok || a.src.Bytes == 0 {
			parts = append(parts, fmt.Sprintf("%s: %v", a.src.Rel, round(el)))
			continue
		}
		pos = min(pos, a.src.Bytes)
		read += pos
		rows := float64(pos) * a.rowsPerByte
		estRows += rows
		frac := float64(pos) / float64(a.src.Bytes)
		p := fmt.Sprintf("%s: %.0f%%, ~%s rows, ~%s rows/s", a.src.Rel, 100*frac, human(rows), human(rows/el.Seconds()))
		if frac > 0.01 {
			p += ", ETA " + round(time.Duration(float64(el)*(1-frac)/frac)).String()
		}
		parts = append(parts, p)
	}
	el := now.Sub(t.start)
	all := fmt.Sprintf("overall: %v elapsed, ~%s rows/s", round(el), human(estRows/max(el.Seconds(), 1e-9)))
	if t.total > 0 {
		frac := float64(read) / float64(t.total)
		all += fmt.Sprintf(", %.0f%% of %s", 100*frac, humanBytes(t.total))
		if frac > 0.01 {
			all += ", ETA " + round(time.Duration(float64(el)*(1-frac)/frac)).String()
		}
	}
	return strings.Join(append(parts, all), " | ")
}

// report prints the progress line to w every interval until stop closes.
func (t *tracker) report(w io.Writer, every time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			fmt.Fprintf(w, "  %s\n", t.line(now))
		}
	}
}

func round(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

func human(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KB", n>>10)
}
