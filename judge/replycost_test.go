package judge

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

// TestRepliesCostFromCache: a run buys every reply and is killed before
// it records any verdict (its ledger is lost, its cache and spending
// record are not); the resumed run reads every reply from the cache. Its
// judge_summary.json must not say the verdicts cost nothing: it reports
// what the replies cost when they were bought (the bill), next to what
// this run spent (nothing) and the folder's spending record (the bill).
func TestRepliesCostFromCache(t *testing.T) {
	for _, mode := range []llm.Mode{llm.ModeOnline, llm.ModeBatch} {
		t.Run(string(mode), func(t *testing.T) {
			srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
			dir := t.TempDir()
			items := killItems(t)[:10]
			run := func() *judgefmt.Summary {
				j, meter := killClient(t, srv.OpenAIBaseURL(), dir, func(ep *llm.Endpoint) {
					if mode == llm.ModeBatch {
						ep.Mode = llm.ModeBatch
						ep.Batch = llm.BatchLimits{Poll: time.Millisecond, Collect: 20 * time.Millisecond}
					}
				}, &llm.BatchOptions{Dir: dir})
				opts := Options{Mode: rubric.Strict, Backend: j, Skipping: true, Group: GroupTree}
				o := mustRun(t, items, openLedger(t, dir, opts), opts)
				if !o.Complete() {
					t.Fatalf("incomplete: %v", o.Stopped)
				}
				s := Score(o, "m").Summary
				j.c.(*llm.Client).Close() // as the process ends: the batch journal is released
				meter.Close()
				return s
			}
			first := run()
			// Killed before recording: the ledger is lost.
			if err := os.Remove(filepath.Join(dir, judgefmt.LedgerFile)); err != nil {
				t.Fatal(err)
			}
			calls := srv.Calls()
			second := run()
			p, c := srv.Billed()
			billed, _ := killPrices.Cost("judge-test", llm.Usage{PromptTokens: p, CompletionTokens: c})
			if mode == llm.ModeBatch {
				billed, _ = killPrices.BatchCost("judge-test", llm.Usage{PromptTokens: p, CompletionTokens: c})
			}
			t.Logf("billed $%.6f; first run: cost $%.6f; resumed from the cache (%d calls): cost $%.6f, replies $%.6f, spending %+v",
				billed, first.CostUSD, srv.Calls()-calls, second.CostUSD, second.RepliesCostUSD, second.Spending)
			if srv.Calls() != calls || second.CacheHits == 0 {
				t.Fatalf("the resumed run made %d calls, %d cache hits: the test did not test it", srv.Calls()-calls, second.CacheHits)
			}
			if math.Abs(second.RepliesCostUSD-billed) > 1e-9 {
				t.Errorf("judge_summary: replies cost $%.6f, the provider billed $%.6f for them", second.RepliesCostUSD, billed)
			}
			if sp := second.Spending; sp == nil || sp.ThisRunUSD != 0 || math.Abs(sp.FolderUSD-billed) > 1e-9 {
				t.Errorf("judge_summary: spending %+v; want nothing this run, $%.6f in the folder", sp, billed)
			}
		})
	}
}
