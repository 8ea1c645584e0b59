package cli

import (
	"flag"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/clinsql/clinsql/internal/progress"
	"github.com/clinsql/clinsql/llm"
)

// addBatchWait adds --batch-wait, the bound on waiting for an endpoint in
// mode batch (see llm.BatchOptions.Wait).
func addBatchWait(fs *flag.FlagSet) *time.Duration {
	return fs.Duration("batch-wait", 0, "endpoints in mode batch: how long to wait for the provider's batches before stopping incomplete (exit 3: run again to collect them; nothing is sent twice); 0 waits until they finish")
}

// batchReporter prints where an endpoint's batches stand, above the
// progress line when there is one.
type batchReporter struct {
	mu    sync.Mutex
	w     io.Writer
	bar   *progress.Bar
	label string
	last  string
}

func newBatchReporter(w io.Writer, label string) *batchReporter {
	return &batchReporter{w: w, label: label}
}

func (r *batchReporter) setBar(b *progress.Bar) {
	r.mu.Lock()
	r.bar = b
	r.mu.Unlock()
}

func (r *batchReporter) report(p llm.BatchProgress) {
	line := fmt.Sprintf("%s batches: %d submitted, %d in progress, %d done; requests: %d of %d answered; ~$%.4f so far at batch prices",
		r.label, p.Submitted, p.InProgress, p.Done, p.Answered, p.Requests, p.CostUSD)
	r.mu.Lock()
	defer r.mu.Unlock()
	if line == r.last {
		return
	}
	r.last = line
	if r.bar != nil {
		r.bar.Log("%s", line)
		return
	}
	fmt.Fprintln(r.w, line)
}

// options are the batch options of a command's clients (the folder is set
// per client).
func (r *batchReporter) options(wait time.Duration) *llm.BatchOptions {
	return &llm.BatchOptions{Wait: wait, Progress: r.report}
}

// batchPrice formats the cost of usd online at the batch share of model's
// price, for estimates: "$1.20 online, $0.60 in batch mode".
func batchPrice(prices llm.Prices, model string, usd float64) string {
	return prices.OnlineAndBatch(model, usd)
}
