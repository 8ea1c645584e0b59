package judge

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/clinsql/clinsql/judge/judgefmt"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/runfolder"
)

// benchItems returns the 190 validation tasks with gpt-5-chat's released
// answers when the shared data is there, else 190 copies of the generated
// fixture tasks under distinct keys.
func benchItems(b *testing.B) ([]Item, string) {
	if dir, ok := shared.Dir(); ok {
		if items := releasedItems(b, filepath.Join(dir, "clinsql-data")); items != nil {
			return items, "validation tasks, gpt-5-chat answers"
		}
	}
	_, _, base := fixtureRun(b)
	var items []Item
	for i := 0; len(items) < 190; i++ {
		src := base[i%len(base)]
		t := *src.Task
		t.Key.ID = fmt.Sprintf("%03d", i)
		a := *src.Answer
		a.Key = t.Key
		items = append(items, Item{Task: &t, Answer: &a})
	}
	return items, "generated fixture tasks"
}

// releasedItems pairs the validation tasks in data (the shared
// clinsql-data folder) with gpt-5-chat's released answers; nil when the
// tasks are not there.
func releasedItems(tb testing.TB, data string) []Item {
	tasks, err := datasets.LoadClinSQL(filepath.Join(data, "data", "splits", "validation"))
	if err != nil {
		return nil
	}
	run := filepath.Join(data, "outputs", "inference", "gpt-5-chat")
	outs, err := runfolder.LoadOutputs(run)
	if err != nil {
		tb.Fatal(err)
	}
	items, err := Pair(tasks, outs, run)
	if err != nil {
		tb.Fatal(err)
	}
	return items
}

// BenchmarkJudge190 judges 190 tasks through the fake endpoint with 300 ms
// per call at concurrency 32, with code checks and gate skipping, once per
// grouping, and reports the wall time against the ideal calls x latency /
// concurrency, the calls and the tokens.
func BenchmarkJudge190(b *testing.B) {
	for _, g := range []groupOpt{{GroupLeaf, false}, {GroupCategory, false}, {GroupTree, false}, {GroupTree, true}} {
		b.Run("group="+g.String(), func(b *testing.B) { benchJudge190(b, g) })
	}
}

func benchJudge190(b *testing.B, g groupOpt) {
	const (
		latency     = 300 * time.Millisecond
		concurrency = 32
	)
	items, what := benchItems(b)
	srv := llmtest.Start(b, verdictReply(hashVerdict), llmtest.Options{Latency: latency})
	c, err := llm.New(testEndpoint(srv, func(ep *llm.Endpoint) {
		ep.Limits.Concurrency = concurrency
		ep.Limits.Timeout = 10 * time.Second
	}), llm.Options{Getenv: testGetenv})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(c.Close)
	j, err := NewLLMJudge(c, LLMOptions{})
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Mode: rubric.Strict, Backend: j, CodeChecks: true, Skipping: true, Group: g.mode, GroupGated: g.gated}
	var wall time.Duration
	var calls, prompt, completion int
	var s *judgefmt.Summary
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		l := openLedger(b, b.TempDir(), opts)
		before := srv.Calls()
		b.StartTimer()
		start := time.Now()
		o, err := Run(context.Background(), items, l, opts)
		if err != nil {
			b.Fatal(err)
		}
		wall += time.Since(start)
		b.StopTimer()
		if !o.Complete() {
			b.Fatalf("incomplete: %v", o.Stopped)
		}
		calls += srv.Calls() - before
		s = Score(o, "bench").Summary
		prompt += s.PromptTokens
		completion += s.CompletionTokens
		b.StartTimer()
	}
	b.StopTimer()
	n := time.Duration(b.N)
	perCalls := float64(calls) / float64(b.N)
	ideal := time.Duration(perCalls * float64(latency) / concurrency)
	b.ReportMetric((wall / n).Seconds(), "wall-s")
	b.ReportMetric(perCalls, "calls")
	b.ReportMetric(perCalls/float64(len(items)), "calls/task")
	b.ReportMetric(float64(prompt)/float64(b.N), "prompt-tokens")
	b.ReportMetric(float64(completion)/float64(b.N), "completion-tokens")
	b.ReportMetric(float64(prompt+completion)/float64(b.N)/float64(len(items)), "tokens/task")
	b.ReportMetric(ideal.Seconds(), "ideal-s")
	b.ReportMetric((wall/n).Seconds()/ideal.Seconds(), "wall/ideal")
	b.ReportMetric(float64(srv.MaxInFlight()), "max-in-flight")
	b.Logf("%d tasks (%s), grouping %s: %d leaves, %d by code, %d by the judge in %d calls, %d skipped, %d judged but uncounted",
		len(items), what, g, s.LeavesTotal, s.LeavesCode, s.LeavesLLM, s.BackendCalls, s.LeavesSkipped, s.BackendLeavesUncounted)
	if srv.MaxInFlight() > concurrency {
		b.Errorf("max in flight %d above the limit %d", srv.MaxInFlight(), concurrency)
	}
}
