package judge

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/internal/testrace"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

// validationItems are the 190 validation tasks with gpt-5-chat's released
// answers (skipped without the shared data).
func validationItems(t testing.TB) []Item {
	items := releasedItems(t, shared.Path(t, "clinsql-data"))
	if len(items) != 190 {
		t.Fatalf("%d items, want 190", len(items))
	}
	return items
}

// TestBatchJudge190 is the batch mode's acceptance measurement: the 190
// validation tasks judged online and in batch mode against the same
// scripted fake (tree grouping, code checks, gate skipping) give the same
// ledger record for every leaf apart from the timing fields and the
// dollars, the same scores, and the batch run costs half.
func TestBatchJudge190(t *testing.T) {
	items := testrace.Part(t, validationItems(t), 4)
	srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
	prices := llm.Prices{"judge-test": {Prompt: 0.15, Completion: 0.60}}
	opts := Options{Mode: rubric.Strict, CodeChecks: true, Skipping: true, Group: GroupTree}
	judgeIn := func(mode llm.Mode) (*Outcome, *judgefmt.LedgerContents, *llm.Meter, *llmtest.Server) {
		dir := t.TempDir()
		meter := llm.NewMeter(prices, 0)
		c, err := llm.New(testEndpoint(srv, func(ep *llm.Endpoint) {
			ep.Mode = mode
			ep.Limits.Concurrency = 16
			// The fake answers a whole batch inside one retrieve, holding
			// its lock: on a slow machine (the race detector) a concurrent
			// upload could time out, and the requests of a batch never
			// created count an extra attempt.
			ep.Limits.Timeout = 2 * time.Minute
			ep.Batch = llm.BatchLimits{Poll: time.Millisecond, Collect: 50 * time.Millisecond}
		}), llm.Options{Getenv: testGetenv, Meter: meter, Batch: &llm.BatchOptions{Dir: dir}})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		j, err := NewLLMJudge(c, LLMOptions{Prices: prices})
		if err != nil {
			t.Fatal(err)
		}
		o := opts
		o.Backend = j
		l := openLedger(t, dir, o)
		out := mustRun(t, items, l, o)
		if !out.Complete() {
			t.Fatalf("mode %s: incomplete: %v", mode, out.Stopped)
		}
		contents, err := judgefmt.ReadLedger(filepath.Join(dir, judgefmt.LedgerFile))
		if err != nil {
			t.Fatal(err)
		}
		return out, contents, meter, srv
	}
	before := len(srv.Requests())
	on, onLedger, onMeter, _ := judgeIn(llm.ModeOnline)
	onlineCalls := len(srv.Requests()) - before
	ba, baLedger, baMeter, _ := judgeIn(llm.ModeBatch)
	batchCalls := len(srv.Requests()) - before - onlineCalls

	if onlineCalls != batchCalls {
		t.Errorf("%d requests online, %d in batches", onlineCalls, batchCalls)
	}
	// Every leaf decided once in each ledger, with the same record.
	norm := func(c *judgefmt.LedgerContents) (map[judgefmt.LeafKey]judgefmt.Record, float64) {
		out := map[judgefmt.LeafKey]judgefmt.Record{}
		var usd float64
		for _, r := range c.Records {
			if _, dup := out[r.Key()]; dup {
				t.Errorf("%s decided twice", r.Key())
			}
			usd += r.CostUSD
			r.LatencyMS, r.Time, r.CostUSD, r.ReplyCostUSD = 0, time.Time{}, 0, 0
			out[r.Key()] = r
		}
		return out, usd
	}
	onRecs, onUSD := norm(onLedger)
	baRecs, baUSD := norm(baLedger)
	if len(onRecs) != len(baRecs) {
		t.Errorf("%d leaves online, %d in batch mode", len(onRecs), len(baRecs))
	}
	diffs := 0
	for k, r := range onRecs {
		if b, ok := baRecs[k]; !ok || !reflect.DeepEqual(r, b) {
			if diffs++; diffs <= 5 {
				ja, _ := json.Marshal(r)
				jb, _ := json.Marshal(b)
				t.Errorf("%s:\n online %s\n batch  %s", k, ja, jb)
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d ledger records differ", diffs, len(onRecs))
	}
	// The same scores.
	onScore, baScore := Score(on, "gpt-5-chat").Summary, Score(ba, "gpt-5-chat").Summary
	if !reflect.DeepEqual(onScore.Splits, baScore.Splits) {
		t.Errorf("scores differ:\n online %+v\n batch  %+v", onScore.Splits, baScore.Splits)
	}
	// Half the cost, in the ledger and at the meter.
	if onUSD == 0 || math.Abs(baUSD-onUSD/2) > 1e-9 {
		t.Errorf("ledger cost: online $%.6f, batch $%.6f; want half", onUSD, baUSD)
	}
	onM, baM := onMeter.Total().CostUSD, baMeter.Total().CostUSD
	if math.Abs(baM-onM/2) > 1e-9 {
		t.Errorf("meter cost: online $%.6f, batch $%.6f; want half", onM, baM)
	}
	for id, n := range srv.Submitted() {
		if n != 1 {
			t.Errorf("request %s submitted in %d batches", id[:12], n)
		}
	}
	sizes := srv.BatchSizes()
	var keys []string
	for k := range onScore.Splits {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("%d tasks, grouping tree: %d leaves, %d judge requests in each mode, %d batches (sizes %v); cost online $%.6f, batch $%.6f (ratio %.3f)",
		len(items), len(onRecs), onlineCalls, len(sizes), sizes, onM, baM, baM/onM)
	for _, k := range keys {
		t.Logf("split %s: SQL %.6f, execution %.6f (both modes)", k, onScore.Splits[k].AverageSQLScore, onScore.Splits[k].AverageResultsScore)
	}
}
