package llm_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// onEveryBatch applies results to every batch.
func onEveryBatch(results func([]llmtest.ResultLine) []llmtest.ResultLine) func(i, n int) llmtest.BatchScript {
	return func(i, n int) llmtest.BatchScript { return llmtest.BatchScript{Results: results} }
}

// wrongFirst puts before every line a second answer to the same request
// that says something else: a provider whose result file holds two
// conflicting lines for one custom_id, the wrong one first.
func wrongFirst(lines []llmtest.ResultLine) []llmtest.ResultLine {
	var out []llmtest.ResultLine
	for _, l := range lines {
		out = append(out, l.WithContent("a different answer to "+l.Content()), l)
	}
	return out
}

// batchBilled prices what the fake provider billed, at the batch price.
func batchBilled(srv *llmtest.Server) float64 {
	p, c := srv.Billed()
	usd, _ := testPrices.BatchCost("gpt-test", llm.Usage{PromptTokens: p, CompletionTokens: c})
	return usd
}

// TestBatchConflictingResults: a result file with several lines for one
// custom_id. Identical lines are one reply, paid once. Lines that
// disagree give no reply at all (choosing one would choose a verdict):
// the request is retried in a new batch, its first batch charged, and a
// request that never gets one consistent answer fails as malformed with a
// message that says why.
func TestBatchConflictingResults(t *testing.T) {
	const n = 6
	for _, tc := range []struct {
		name    string
		script  func(i, n int) llmtest.BatchScript
		batches int  // created in all
		failed  bool // every request ends in an error
	}{
		{"identical duplicates", onEveryBatch(llmtest.RepeatResults(nil, nil)), 1, false},
		{"conflicting in the first batch", firstBatch(llmtest.BatchScript{Results: wrongFirst}), 2, false},
		{"conflicting in every batch", onEveryBatch(wrongFirst), 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.Start(t, answer, llmtest.Options{Batches: tc.script})
			dir := t.TempDir()
			m, err := llm.OpenMeter(dir, testPrices, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ep := batchEndpoint(srv, func(ep *llm.Endpoint) { ep.Retry.MaxAttempts = 3 })
			c := newClient(t, ep, llm.Options{Meter: m, Batch: &llm.BatchOptions{Dir: dir}})
			for i, r := range askAll(c, prompts(n), nil) {
				want := "answer to " + reverse(prompts(n)[i])
				switch {
				case tc.failed:
					if llm.KindOf(r.err) != llm.KindMalformed || !strings.Contains(r.err.Error(), "disagree") {
						t.Errorf("%s: %q, %v; want a malformed_reply error saying the lines disagree", prompts(n)[i], r.resp.Text, r.err)
					}
				case r.err != nil || r.resp.Text != want:
					t.Errorf("%s: %q, %v; want %q", prompts(n)[i], r.resp.Text, r.err, want)
				}
			}
			if got := srv.BatchesCreated(); got != tc.batches {
				t.Errorf("%d batches created, want %d", got, tc.batches)
			}
			// Every line the provider produced is paid for: identical
			// lines once, conflicting ones each (both answers were run).
			billed := batchBilled(srv)
			if spent := m.Spent(); spent < billed-1e-12 {
				t.Errorf("recorded $%.6f, provider billed $%.6f", spent, billed)
			}
			t.Logf("%d batches, billed $%.6f, recorded $%.6f", srv.BatchesCreated(), billed, m.Spent())
		})
	}
}

// TestBatchMissingResults: requests that were sent but have no result
// line (their custom_ids altered, their lines dropped, a completed batch
// with no line at all) are charged at their reservation, never $0, and
// are sent again only as the budget allows: the folder's record is never
// below what the provider billed, and a cap stops the resending.
func TestBatchMissingResults(t *testing.T) {
	const n = 6
	for _, tc := range []struct {
		name     string
		script   func(i, n int) llmtest.BatchScript
		budget   float64
		answered int // requests answered in the end
	}{
		{"half dropped in the first batch", firstBatch(llmtest.BatchScript{Results: llmtest.DropResults(func(i int, _ llmtest.ResultLine) bool { return i%2 == 0 })}), 0, n},
		{"ids altered in every batch", onEveryBatch(llmtest.AlterCustomIDs), 0, 0},
		{"no lines, capped", onEveryBatch(llmtest.DropResults(func(int, llmtest.ResultLine) bool { return false })), 0.002, 0},
		{"cancelled, ids altered", firstBatch(llmtest.BatchScript{Steps: []string{"cancelled"}, Answered: 3, Results: llmtest.AlterCustomIDs}), 0, n},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.Start(t, answer, llmtest.Options{Batches: tc.script})
			dir := t.TempDir()
			m, err := llm.OpenMeter(dir, testPrices, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			ep := batchEndpoint(srv, func(ep *llm.Endpoint) { ep.Retry.MaxAttempts = 3 })
			c := newClient(t, ep, llm.Options{Meter: m, Batch: &llm.BatchOptions{Dir: dir}})
			answered := 0
			for _, r := range askAll(c, prompts(n), nil) {
				switch k := llm.KindOf(r.err); {
				case r.err == nil:
					answered++
				case k == llm.KindBudget:
				case !strings.Contains(r.err.Error(), "without a result line"):
					t.Errorf("error %v does not say the result line is missing", r.err)
				}
			}
			if answered != tc.answered {
				t.Errorf("%d requests answered, want %d", answered, tc.answered)
			}
			billed := batchBilled(srv)
			spent := m.Spent()
			t.Logf("%d batches of %v, billed $%.6f, recorded $%.6f", srv.BatchesCreated(), srv.BatchSizes(), billed, spent)
			if billed == 0 {
				t.Fatal("the provider billed nothing: the test did not test it")
			}
			if spent < billed-1e-12 {
				t.Errorf("recorded $%.6f, less than the $%.6f the provider billed", spent, billed)
			}
			if tc.budget > 0 && billed > tc.budget {
				t.Errorf("billed $%.6f on a budget of $%.4f", billed, tc.budget)
			}
		})
	}
}

// TestBatchNotRun: an expired or cancelled batch whose provider lists only
// the requests it ran (the others have no line and are not counted as
// run) settles those others at nothing and sends them again: the record
// equals the bill.
func TestBatchNotRun(t *testing.T) {
	const n = 6
	for _, status := range []string{"expired", "cancelled"} {
		t.Run(status, func(t *testing.T) {
			srv := llmtest.Start(t, answer, llmtest.Options{Batches: firstBatch(llmtest.BatchScript{Steps: []string{status}, Answered: 2, Unlisted: true})})
			dir := t.TempDir()
			m, err := llm.OpenMeter(dir, testPrices, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			c := newClient(t, batchEndpoint(srv, nil), llm.Options{Meter: m, Batch: &llm.BatchOptions{Dir: dir}})
			for _, r := range askAll(c, prompts(n), nil) {
				if r.err != nil {
					t.Error(r.err)
				}
			}
			if got := srv.BatchSizes(); !slices.Equal(got, []int{n, n - 2}) {
				t.Errorf("batches %v, want [%d %d]", got, n, n-2)
			}
			if billed := batchBilled(srv); !near(m.Spent(), billed) {
				t.Errorf("recorded $%.6f, billed $%.6f", m.Spent(), billed)
			}
		})
	}
}

// TestBatchResultsStreamed: a batch's result file is spooled to disk as
// it arrives and read line by line: when it has been downloaded, the
// process holds none of it in memory (it held the file and every line
// parsed from it: about 6.6 times its size).
func TestBatchResultsStreamed(t *testing.T) {
	const n, size = 200, 64 << 10 // 200 replies of 64 KiB: a 13 MB file
	big := strings.Repeat("x", size)
	srv := llmtest.Start(t, func(c *llmtest.Call) llmtest.Reply {
		return llmtest.Reply{Content: big + c.LastUser(), PromptTokens: 10, CompletionTokens: 10}
	}, llmtest.Options{})
	var before, after runtime.MemStats
	hook := func(step string) error {
		switch step {
		case "download":
			runtime.GC()
			runtime.ReadMemStats(&before)
		case "downloaded":
			runtime.GC()
			runtime.ReadMemStats(&after)
		}
		return nil
	}
	dir := t.TempDir()
	// The fake answers a whole batch inside one retrieve: 13 MB of replies
	// may take a while on a loaded machine (the race detector).
	ep := batchEndpoint(srv, func(ep *llm.Endpoint) { ep.Limits.Timeout = 2 * time.Minute })
	c := newClient(t, ep, llm.Options{Batch: &llm.BatchOptions{Dir: dir, Step: hook}})
	for _, r := range askAll(c, prompts(n), nil) {
		if r.err != nil || len(r.resp.Text) < size {
			t.Fatalf("%d bytes, %v", len(r.resp.Text), r.err)
		}
	}
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("result file of %d MB: %d MB held once downloaded", n*size>>20, held>>20)
	if held > n*size/4 {
		t.Errorf("%d MB held in memory once a %d MB result file was downloaded", held>>20, n*size>>20)
	}
}
