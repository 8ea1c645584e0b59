package llm_test

import (
	"strings"
	"testing"

	"github.com/clinsql/clinsql/llm"
)

// TestBatchReporter: one line per change of the batches' state, a repeat
// skipped, each line to the output set when it is printed.
func TestBatchReporter(t *testing.T) {
	var before, after strings.Builder
	r := llm.NewBatchReporter(&before, "judge:")
	p := llm.BatchProgress{Submitted: 1, InProgress: 1, Requests: 4}
	r.Progress(p)
	r.Progress(p) // no change: not printed again
	r.SetOutput(&after)
	p.InProgress, p.Done, p.Answered, p.CostUSD = 0, 1, 4, 0.0125
	r.Progress(p)
	r.Progress(p)
	if want := "judge: batches: 1 submitted, 1 in progress, 0 done; requests: 0 of 4 answered; ~$0.0000 so far at batch prices\n"; before.String() != want {
		t.Errorf("before SetOutput:\n%q\nwant\n%q", before.String(), want)
	}
	if want := "judge: batches: 1 submitted, 0 in progress, 1 done; requests: 4 of 4 answered; ~$0.0125 so far at batch prices\n"; after.String() != want {
		t.Errorf("after SetOutput:\n%q\nwant\n%q", after.String(), want)
	}
	if o := r.Options(0); o.Progress == nil || o.Wait != 0 {
		t.Errorf("options %+v", o)
	}
}
