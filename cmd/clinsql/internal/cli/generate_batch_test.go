package cli

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// TestGenerateBatchOnDemo is the batch mode's generation acceptance: the
// 190 validation tasks on the embedded engine with the MIMIC-IV demo, two
// refinement rounds, against one scripted fake (each task's gold SQL,
// broken in its first refinetest.ErrsByIndex(i) answers), generated once
// online and once with the same model in mode batch. Every task ends with
// the same status, the same attempts and the same first success, so the
// attempt-wise success is the same; batch mode sends the same number of
// requests, all in batches (the first attempts, then each round's fixes).
func TestGenerateBatchOnDemo(t *testing.T) {
	dir, db, data, all := demoValidation(t)
	tasks, sel := raceSubset(t, all)
	sched := goldSchedule(tasks)
	srv := llmtest.Start(t, sched.Handler(), llmtest.Options{APIKey: genKey})

	generateIn := func(mode string) (string, []llmtest.Call) {
		models := filepath.Join(dir, mode+".yaml")
		yaml := "models:\n  - name: m\n    kind: openai\n    base_url: " + srv.OpenAIBaseURL() +
			"\n    model: fake-model\n    api_key_env: GEN_TEST_KEY\n    sampling: {temperature: 0, max_tokens: 512}\n" +
			"    limits: {concurrency: 4, timeout: 10m}\n    retry: {max_attempts: 2, base_delay: 1ms, max_delay: 2ms}\n" +
			"    rounds: 2\n    mode: " + mode + "\n    batch: {poll: 1ms, collect: 1h}\n"
		if err := os.WriteFile(models, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out-"+mode)
		before := len(srv.Requests())
		code, stdout, stderr := runGen(t, append(append([]string{"generate", "--models", models, "--tasks", data}, sel...),
			"--db", db, "--out", out, "--concurrency", "4", "--quiet")...)
		if code != 0 {
			t.Fatalf("generate (%s): exit %d\n%s\n%s", mode, code, stdout, stderr)
		}
		t.Logf("%s:\n%s%s", mode, stdout, stderr)
		return filepath.Join(out, "m"), srv.Requests()[before:]
	}
	onRun, onCalls := generateIn("online")
	baRun, baCalls := generateIn("batch")

	if len(onCalls) != len(baCalls) {
		t.Errorf("%d requests online, %d in batch mode", len(onCalls), len(baCalls))
	}
	batches := map[string]int{}
	for _, c := range baCalls {
		if c.Batch == "" {
			t.Fatalf("batch mode made an online call")
		}
		batches[c.Batch]++
	}
	for _, c := range onCalls {
		if c.Batch != "" {
			t.Fatalf("online mode sent a batch")
		}
	}
	// A batch per round, sent as soon as every task waits (the collect
	// window of an hour never passes).
	if len(batches) != 3 {
		t.Errorf("%d batches, want 3 (the first attempts, then each of 2 rounds)", len(batches))
	}
	onSum, err := runfolder.ReadBenchmarkSummary(onRun)
	if err != nil {
		t.Fatal(err)
	}
	baSum, err := runfolder.ReadBenchmarkSummary(baRun)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(onSum.Counts, baSum.Counts) || !reflect.DeepEqual(onSum.CumulativeRates, baSum.CumulativeRates) || onSum.TotalQueries != baSum.TotalQueries {
		t.Errorf("attempt-wise success differs:\n online %v %v (%v counted)\n batch  %v %v (%v counted)",
			onSum.Counts, onSum.CumulativeRates, onSum.TotalQueries, baSum.Counts, baSum.CumulativeRates, baSum.TotalQueries)
	}
	for _, tk := range tasks {
		on, ok1, err1 := refinefmt.ReadSummary(onRun, tk.Key)
		ba, ok2, err2 := refinefmt.ReadSummary(baRun, tk.Key)
		if !ok1 || !ok2 || err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", tk.Key, err1, err2)
		}
		if on.Clinsql.Status != ba.Clinsql.Status || len(on.RefinementAttempts) != len(ba.RefinementAttempts) ||
			on.Clinsql.SuccessAttempt != ba.Clinsql.SuccessAttempt || on.FinalSQL != ba.FinalSQL {
			t.Errorf("%s: online %s after %d attempts, batch %s after %d", tk.Key, on.Clinsql.Status, len(on.RefinementAttempts),
				ba.Clinsql.Status, len(ba.RefinementAttempts))
		}
	}
	var sizes []string
	for id, n := range batches {
		sizes = append(sizes, id+":"+strconv.Itoa(n))
	}
	t.Logf("%d tasks, 2 rounds: %d requests in each mode; %d batches (%s); successes at attempts 1/2/3: %v/%v/%v, cumulative %%: %.1f/%.1f/%.1f in both modes",
		len(tasks), len(onCalls), len(batches), strings.Join(sizes, " "), onSum.Counts["1"], onSum.Counts["2"], onSum.Counts["3"],
		onSum.CumulativeRates["1"], onSum.CumulativeRates["2"], onSum.CumulativeRates["3"])
}

// TestGenerateEstimateBatch: --estimate prices every round online and
// through the batch API side by side; the batch column is half, or the
// prices file's share.
func TestGenerateEstimateBatch(t *testing.T) {
	dir := t.TempDir()
	tasksDir := filepath.Join(dir, "data")
	if _, err := fixtures.WriteClinSQL(tasksDir); err != nil {
		t.Fatal(err)
	}
	models := writeModels(t, dir, map[string]string{"alpha": "http://127.0.0.1:1/v1", "beta": "http://127.0.0.1:1/v1"})
	prices := filepath.Join(dir, "prices.yaml")
	os.WriteFile(prices, []byte("prices:\n  fake-alpha: {prompt: 100, completion: 100}\n  fake-beta: {prompt: 100, completion: 100, batch: 0.25}\n"), 0o644)
	code, stdout, stderr := runGen(t, "generate", "--models", models, "--tasks", tasksDir, "--split", "validation", "--prices", prices, "--estimate")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for _, m := range []struct {
		name  string
		share float64
	}{{"alpha", 0.5}, {"beta", 0.25}} {
		var tasks, calls, prompt int
		var first, all, batch float64
		line := ""
		for _, l := range strings.Split(stdout, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), m.name+" ") {
				line = l
			}
		}
		if _, err := fmt.Sscan(line, new(string), &tasks, &calls, &prompt, &first, &all, &batch); err != nil {
			t.Fatalf("%s: line %q: %v\n%s", m.name, line, err, stdout)
		}
		if want := all * m.share; all == 0 || math.Abs(batch-want) > 0.006 {
			t.Errorf("%s: batch $%.2f, want %.2f x $%.2f", m.name, batch, m.share, all)
		}
	}
}

// TestGenerateBatchDown: generation in batch mode whose provider goes down
// (every connection closed without a reply) right after the first batch is created stops
// within retry.down_after with exit code 3 and the reason, the tasks
// pending; run again once the provider is back, it collects that batch by
// its id and finishes every task, no request submitted twice.
func TestGenerateBatchDown(t *testing.T) {
	dir, db, data, tasks := demoValidation(t)
	const limit = 12
	var srv *llmtest.Server
	var downed atomic.Bool
	srv = llmtest.Start(t, goldSchedule(tasks).Handler(), llmtest.Options{APIKey: genKey,
		Batches: func(i, n int) llmtest.BatchScript {
			if downed.CompareAndSwap(false, true) {
				srv.Down(llmtest.Broken(llmtest.Disconnect)) // this create's reply still goes out
			}
			return llmtest.BatchScript{Steps: []string{"in_progress", "in_progress", "completed"}}
		}})
	models := filepath.Join(dir, "batch.yaml")
	yaml := "models:\n  - name: m\n    kind: openai\n    base_url: " + srv.OpenAIBaseURL() +
		"\n    model: fake-model\n    api_key_env: GEN_TEST_KEY\n    sampling: {temperature: 0, max_tokens: 512}\n" +
		"    limits: {concurrency: 4, timeout: 10m}\n    retry: {max_attempts: 100, base_delay: 1ms, max_delay: 20ms, down_after: 300ms}\n" +
		"    rounds: 2\n    mode: batch\n    batch: {poll: 5ms, collect: 1h}\n"
	if err := os.WriteFile(models, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := []string{"generate", "--models", models, "--tasks", data, "--split", "validation",
		"--db", db, "--out", out, "--concurrency", "4", "--quiet", "--limit", strconv.Itoa(limit)}
	code, stdout, stderr := runGen(t, args...)
	if code != exitIncomplete || !strings.Contains(stdout+stderr, "declared down") {
		t.Fatalf("exit %d, want %d with the endpoint declared down:\n%s\n%s", code, exitIncomplete, stdout, stderr)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr = runGen(t, args...); code != 0 {
		t.Fatalf("resume: exit %d:\n%s\n%s", code, stdout, stderr)
	}
	for id, n := range srv.Submitted() {
		if n != 1 {
			t.Errorf("request %s submitted %d times", id[:12], n)
		}
	}
	done := 0
	for _, tk := range tasks {
		if _, ok, err := refinefmt.ReadSummary(filepath.Join(out, "m"), tk.Key); ok && err == nil {
			done++
		}
	}
	if done != limit {
		t.Errorf("%d tasks done, want %d", done, limit)
	}
}
