package llm

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// BatchReporter prints where a client's batches stand, one line per
// change ("judge: batches: 1 submitted, ..."), a line already printed
// skipped. Its Progress is a [BatchOptions].Progress; the lines go to the
// writer last given (NewBatchReporter, SetOutput): a command points it at
// its progress line's log once it draws one.
type BatchReporter struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	last  string
}

// NewBatchReporter returns a reporter writing to w, each line starting
// with label.
func NewBatchReporter(w io.Writer, label string) *BatchReporter {
	return &BatchReporter{w: w, label: label}
}

// SetOutput sends the lines after it to w.
func (r *BatchReporter) SetOutput(w io.Writer) {
	r.mu.Lock()
	r.w = w
	r.mu.Unlock()
}

// Progress prints p, unless it is the line printed last.
func (r *BatchReporter) Progress(p BatchProgress) {
	line := fmt.Sprintf("%s batches: %d submitted, %d in progress, %d done; requests: %d of %d answered; ~$%.4f so far at batch prices",
		r.label, p.Submitted, p.InProgress, p.Done, p.Answered, p.Requests, p.CostUSD)
	r.mu.Lock()
	defer r.mu.Unlock()
	if line == r.last {
		return
	}
	r.last = line
	fmt.Fprintln(r.w, line)
}

// Options are batch options reporting to r with wait (see
// BatchOptions.Wait); the folder is set per client.
func (r *BatchReporter) Options(wait time.Duration) *BatchOptions {
	return &BatchOptions{Wait: wait, Progress: r.Progress}
}
