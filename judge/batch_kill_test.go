package judge

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/rubric"
)

// batchKillJudge is killJudge in batch mode; step, if set, is the
// client's BatchOptions.Step.
func batchKillJudge(t testing.TB, url, dir string, step func(string) error) (*LLMJudge, Options, *llm.Meter) {
	j, m := killClient(t, url, dir, func(ep *llm.Endpoint) {
		ep.Mode = llm.ModeBatch
		ep.Batch = llm.BatchLimits{MaxRequests: 25, Poll: time.Millisecond, Collect: 20 * time.Millisecond}
	}, &llm.BatchOptions{Dir: dir, Step: step})
	return j, Options{Mode: rubric.Strict, Backend: j, Skipping: true, Group: GroupTree}, m
}

// TestBatchKillChild is the child of TestBatchKillResume: it judges in
// batch mode and, at the n-th time it reaches the step, says so in a file
// and waits to be killed.
func TestBatchKillChild(t *testing.T) {
	dir := os.Getenv("JUDGE_BATCH_KILL_DIR")
	if dir == "" {
		t.Skip("run by TestBatchKillResume")
	}
	at := os.Getenv("JUDGE_BATCH_KILL_STEP")
	n, _ := strconv.Atoi(os.Getenv("JUDGE_BATCH_KILL_N"))
	seen := 0
	_, opts, _ := batchKillJudge(t, os.Getenv("JUDGE_BATCH_KILL_URL"), dir, func(step string) error {
		if step != at {
			return nil
		}
		if seen++; seen == n {
			_ = os.WriteFile(filepath.Join(dir, "at-step"), []byte(step), 0o644)
			select {} // killed here
		}
		return nil
	})
	l := openLedger(t, dir, opts)
	if _, err := Run(context.Background(), killItems(t), l, opts); err != nil {
		t.Fatal(err)
	}
	t.Fatal("the child was meant to be killed before finishing")
}

// TestBatchKillResume kills (SIGKILL) a batch-mode judging run at each
// point where the folder's state differs (see llm.BatchOptions.Step), in
// its second batch, resumes in this process, and checks that every leaf is
// decided exactly once, that no request is submitted in two batches or
// answered twice by the provider, and that the scores equal an
// uninterrupted online run's. The money converges too: once the resumed
// run has read every batch, the folder's spending record equals what the
// provider billed (no reservation of the killed run left counting, those
// booked but never recorded in a batch included), and judge_summary.json
// reports the replies' cost at the bill although the killed run bought
// some of them and the resumed run read them from the cache.
func TestBatchKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	items := killItems(t)
	total := leafCount(items)
	ref := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
	_, refOpts, _ := killJudge(t, ref.OpenAIBaseURL(), t.TempDir(), GroupTree)
	fresh := mustRun(t, items, openLedger(t, t.TempDir(), refOpts), refOpts)

	for _, step := range []string{"prepare", "upload", "uploaded", "create", "created", "poll", "downloaded", "resolved"} {
		t.Run(step, func(t *testing.T) {
			srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestBatchKillChild$", "-test.v")
			cmd.Env = append(os.Environ(), "JUDGE_BATCH_KILL_DIR="+dir, "JUDGE_BATCH_KILL_URL="+srv.OpenAIBaseURL(),
				"JUDGE_BATCH_KILL_STEP="+step, "JUDGE_BATCH_KILL_N=2")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Minute) // a guard against a hang, not a measure
			for {
				if _, err := os.Stat(filepath.Join(dir, "at-step")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the child did not reach step %s:\n%s", step, out.String())
				}
				time.Sleep(2 * time.Millisecond)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			before, err := judgefmt.ReadLedger(filepath.Join(dir, judgefmt.LedgerFile))
			if err != nil {
				t.Fatal(err)
			}
			batchesAtKill := srv.BatchesCreated()

			_, opts, meter := batchKillJudge(t, srv.OpenAIBaseURL(), dir, nil)
			l := openLedger(t, dir, opts)
			o := mustRun(t, items, l, opts)
			if !o.Complete() {
				t.Fatalf("resume incomplete: %v", o.Stopped)
			}
			l.Close()
			checkDecidedOnce(t, filepath.Join(dir, judgefmt.LedgerFile), total)
			for id, n := range srv.Submitted() {
				if n != 1 {
					t.Errorf("request %s submitted in %d batches", id[:12], n)
				}
			}
			answered := map[string]int{}
			for _, c := range srv.Requests() {
				answered[c.CustomID]++
			}
			for id, n := range answered {
				if n != 1 {
					t.Errorf("request %s answered %d times", id[:12], n)
				}
			}
			if a, b := Score(o, "m").Summary.Scores, Score(fresh, "m").Summary.Scores; fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("resumed scores differ from an uninterrupted online run")
			}
			p, c := srv.Billed()
			billed, _ := killPrices.BatchCost("judge-test", llm.Usage{PromptTokens: p, CompletionTokens: c})
			sum := Score(o, "m").Summary
			meter.Close()
			after, err := llm.OpenMeter(dir, killPrices, 0)
			if err != nil {
				t.Fatal(err)
			}
			st := after.Resumed()
			after.Close()
			t.Logf("killed at %s of batch 2: %d leaves recorded, %d batches created; resumed: %d batches in all, %d requests; "+
				"billed $%.6f; summary: cost $%.6f, replies $%.6f, spending %+v; folder record $%.6f, %d open",
				step, len(before.Records), batchesAtKill, srv.BatchesCreated(), len(srv.Submitted()),
				billed, sum.CostUSD, sum.RepliesCostUSD, sum.Spending, st.SpentUSD, st.Unreconciled)
			if st.Unreconciled != 0 || math.Abs(st.SpentUSD-billed) > 1e-9 {
				t.Errorf("folder record $%.6f with %d reservations open; the provider billed $%.6f", st.SpentUSD, st.Unreconciled, billed)
			}
			if math.Abs(sum.RepliesCostUSD-billed) > 1e-9 || sum.Spending == nil || sum.Spending.FolderUSD < billed-1e-9 {
				t.Errorf("judge_summary: replies cost $%.6f, spending %+v; the provider billed $%.6f", sum.RepliesCostUSD, sum.Spending, billed)
			}
		})
	}
}

// TestBatchLeafGrouping: judging leaf by leaf in batch mode, every leaf
// that is ready goes into the first batch, however many a task has (not
// 16 at a time).
func TestBatchLeafGrouping(t *testing.T) {
	var leaves []string
	for i := range 40 {
		leaves = append(leaves, fmt.Sprintf(`{"id":"l%d","requirements":"leaf %d","weight":1,"critical":false,"sub_tasks":[]}`, i, i))
	}
	tree := `{"id":"root","requirements":"all","weight":1,"critical":false,"sequential":false,"sub_tasks":[` + strings.Join(leaves, ",") + `]}`
	items := killItems(t)[:1]
	for _, name := range []string{"sql.json", "results.json"} {
		r, err := rubric.Parse([]byte(tree), name, rubric.JSON)
		if err != nil {
			t.Fatal(err)
		}
		if name == "sql.json" {
			items[0].Task.SQLRubric = r
		} else {
			items[0].Task.ResultsRubric = r
		}
	}
	srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
	dir := t.TempDir()
	// The batch is sent once it holds 80 requests, never after a quiet
	// time (a loaded machine may make the leaves ready slowly): a judge
	// that held leaves back would leave it short, and the batch wait (a
	// guard, not a measure) would stop the run incomplete.
	j, _ := killClient(t, srv.OpenAIBaseURL(), dir, func(ep *llm.Endpoint) {
		ep.Mode = llm.ModeBatch
		ep.Batch = llm.BatchLimits{MaxRequests: 80, Poll: time.Millisecond, Collect: time.Hour}
	}, &llm.BatchOptions{Dir: dir, Wait: 5 * time.Minute})
	opts := Options{Mode: rubric.Strict, Backend: j, Group: GroupLeaf}
	o := mustRun(t, items, openLedger(t, dir, opts), opts)
	if !o.Complete() {
		t.Fatalf("incomplete: %v", o.Stopped)
	}
	if got := srv.BatchSizes(); len(got) != 1 || got[0] != 80 {
		t.Errorf("batch sizes %v, want one batch of the 80 leaves", got)
	}
}

// TestBatchConflictingVerdicts: a provider whose result files hold, for
// every request of the first batch, a second line with every verdict
// flipped, placed first. No verdict is taken from lines that disagree: the
// requests are judged again in a later batch, and the scores equal an
// online run's (taking the first line scored the flipped verdicts).
func TestBatchConflictingVerdicts(t *testing.T) {
	items := killItems(t)
	ref := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
	_, refOpts, _ := killJudge(t, ref.OpenAIBaseURL(), t.TempDir(), GroupTree)
	online := Score(mustRun(t, items, openLedger(t, t.TempDir(), refOpts), refOpts), "m").Summary

	flip := strings.NewReplacer(`"verdict":"pass"`, `"verdict":"fail"`, `"verdict":"fail"`, `"verdict":"pass"`)
	flipFirst := func(lines []llmtest.ResultLine) []llmtest.ResultLine {
		var out []llmtest.ResultLine
		for _, l := range lines {
			out = append(out, l.WithContent(flip.Replace(l.Content())), l)
		}
		return out
	}
	srv := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{Batches: func(i, n int) llmtest.BatchScript {
		if i == 0 {
			return llmtest.BatchScript{Results: flipFirst}
		}
		return llmtest.BatchScript{}
	}})
	dir := t.TempDir()
	_, opts, _ := batchKillJudge(t, srv.OpenAIBaseURL(), dir, nil)
	o := mustRun(t, items, openLedger(t, dir, opts), opts)
	if !o.Complete() {
		t.Fatalf("incomplete: %v", o.Stopped)
	}
	got := Score(o, "m").Summary
	t.Logf("online: %+v; batch with conflicting lines in its first batch: %+v (%d batches)", online.Splits, got.Splits, srv.BatchesCreated())
	if fmt.Sprint(got.Scores) != fmt.Sprint(online.Scores) {
		t.Errorf("scores differ from the online run's: %+v, want %+v", got.Splits, online.Splits)
	}
}
