package judge

import (
	"bytes"
	"context"
	"fmt"
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
func batchKillJudge(t testing.TB, url, dir string, step func(string) error) (*LLMJudge, Options) {
	j, _ := killClient(t, url, dir, func(ep *llm.Endpoint) {
		ep.Mode = llm.ModeBatch
		ep.Batch = llm.BatchLimits{MaxRequests: 25, Poll: time.Millisecond, Collect: 20 * time.Millisecond}
	}, &llm.BatchOptions{Dir: dir, Step: step})
	return j, Options{Mode: rubric.Strict, Backend: j, Skipping: true, Group: GroupTree}
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
	_, opts := batchKillJudge(t, os.Getenv("JUDGE_BATCH_KILL_URL"), dir, func(step string) error {
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
// uninterrupted online run's.
func TestBatchKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	items := killItems(t)
	total := leafCount(items)
	ref := llmtest.Start(t, verdictReply(hashVerdict), llmtest.Options{})
	_, refOpts, _ := killJudge(t, ref.OpenAIBaseURL(), t.TempDir(), GroupTree)
	fresh := mustRun(t, items, openLedger(t, t.TempDir(), refOpts), refOpts)

	for _, step := range []string{"upload", "uploaded", "create", "created", "poll", "downloaded", "resolved"} {
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

			_, opts := batchKillJudge(t, srv.OpenAIBaseURL(), dir, nil)
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
			t.Logf("killed at %s of batch 2: %d leaves recorded, %d batches created; resumed: %d batches in all, %d requests",
				step, len(before.Records), batchesAtKill, srv.BatchesCreated(), len(srv.Submitted()))
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
