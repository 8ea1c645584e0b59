package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/runfolder"
)

// writeModelRun writes a run for the fixture tasks of the validation split
// in the reference inference layout: gold answers, except a failed query
// (placeholder CSV) for the Lab task.
func writeModelRun(t *testing.T, dir string) string {
	t.Helper()
	run := filepath.Join(dir, "run")
	for _, ft := range fixtures.Tasks() {
		if ft.Split != "validation" {
			continue
		}
		td := filepath.Join(run, ft.Path())
		if err := os.MkdirAll(td, 0o755); err != nil {
			t.Fatal(err)
		}
		s := runfolder.ExecutionSummary{Query: ft.Question, FinalSQL: ft.SQL, ExecutionSuccess: true, RowCount: 1, Model: "fixture-model"}
		csv := ft.Result
		if ft.Domain == "Laboratory_Results_Analysis" {
			msg := "400 Unrecognized name: valuenum"
			s.ExecutionSuccess, s.RowCount, s.FinalError, csv = false, 0, &msg, "result\n\"\"\n"
		}
		b, _ := json.Marshal(s)
		os.WriteFile(filepath.Join(td, runfolder.ExecutionSummaryFile), b, 0o644)
		os.WriteFile(filepath.Join(td, datasets.GoldResultFile(ft.ID)), []byte(csv), 0o644)
	}
	return run
}

func runWithKey(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	return runWithClock(t, dir, nil, args...)
}

// runWithClock is runWithKey with now the clock the command's LLM
// clients measure their waits with (nil: time.Now).
func runWithClock(t *testing.T, dir string, now func() time.Time, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Now: now, Getenv: func(k string) string {
		if k == "FAKE_JUDGE_KEY" {
			return "secret"
		}
		return ""
	}}
	code := run(context.Background(), env, args)
	return code, strings.ReplaceAll(stdout.String(), dir, "$DIR"), strings.ReplaceAll(stderr.String(), dir, "$DIR")
}

func TestJudgeReplay(t *testing.T) {
	dir, grading := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	out := filepath.Join(dir, "out")
	args := []string{"judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge", "replay:" + grading, "--mode", "reference"}
	code, stdout, stderr := runCLI(t, dir, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden(t, "judge-replay.stdout", stdout)
	for _, f := range []string{"ledger.jsonl", "detailed_grading.json", "scoring_results.json", "difficulty_scoring_results.json", "scenario_scoring_results.json", "judge_summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	var s map[string]any
	b, _ := os.ReadFile(filepath.Join(out, "judge_summary.json"))
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"leaves_total", "leaves_code", "leaves_llm", "leaves_skipped", "leaves_invalid", "llm_calls", "prompt_tokens", "completion_tokens"} {
		if _, ok := s[k]; !ok {
			t.Errorf("judge_summary.json lacks %s", k)
		}
	}
	// Again: everything is resumed, nothing recorded.
	code, stdout, _ = runCLI(t, dir, args...)
	if code != 0 || !strings.Contains(stdout, "this run: 0 calls, 0 leaves recorded") {
		t.Errorf("re-run: exit %d\n%s", code, stdout)
	}
	// Another mode into the same folder is refused.
	code, _, stderr = runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge", "replay:"+grading)
	if code != 1 || !strings.Contains(stderr, "mode reference, not strict") {
		t.Errorf("other mode: exit %d: %s", code, stderr)
	}
}

// fakeJudge answers the judge's prompts with well-formed replies: a
// verdict for a leaf judged alone, a verdict per id for a group (clinsql
// judge's default). decide gets the requirement's text.
func fakeJudge(decide func(requirement string) string) llmtest.Handler {
	return func(c *llmtest.Call) llmtest.Reply {
		user := c.LastUser()
		if _, rest, ok := strings.Cut(user, "## Requirements to grade\n"); ok {
			out := map[string]map[string]string{}
			for _, line := range strings.Split(rest, "\n") {
				line = strings.TrimLeft(line, " ")
				if id, req, ok := strings.Cut(strings.TrimPrefix(line, "- ["), "] "); ok && strings.HasPrefix(line, "- [") {
					out[id] = map[string]string{"reasoning": "stand-in", "verdict": decide(req)}
				}
			}
			return llmtest.JSON(out)
		}
		_, rest, _ := strings.Cut(user, "## Requirement to grade\n")
		req, _, _ := strings.Cut(rest, "\n")
		return llmtest.JSON(map[string]string{"reasoning": "stand-in", "verdict": decide(req)})
	}
}

func TestJudgeLLM(t *testing.T) {
	dir, _ := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	srv := llmtest.Start(t, fakeJudge(func(req string) string {
		if strings.Contains(req, "percentile") {
			return "fail"
		}
		return "pass"
	}), llmtest.Options{APIKey: "secret"})
	cfg := writeJudgeConfig(t, dir, srv.OpenAIBaseURL())
	out := filepath.Join(dir, "out")
	// A budget that runs out stops cleanly with exit code 3.
	code, _, stderr := runWithKey(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge-config", cfg, "--budget", "2", "--concurrency", "1")
	if code != exitIncomplete || !strings.Contains(stderr, "budget") || !strings.Contains(stderr, "estimate: at most") {
		t.Fatalf("budget: exit %d: %s", code, stderr)
	}
	calls := srv.Calls()
	// Resumed without a budget, it finishes.
	code, stdout, stderr := runWithKey(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge-config", cfg, "--budget", "0")
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "resuming:") || !strings.Contains(stdout, "undecided") {
		t.Errorf("resume output:\n%s\n%s", stderr, stdout)
	}
	c, err := judgefmt.ReadLedger(filepath.Join(out, judgefmt.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[judgefmt.LeafKey]int{}
	for _, r := range c.Records {
		seen[r.Key()]++
		if seen[r.Key()] > 1 {
			t.Errorf("leaf %v recorded twice", r.Key())
		}
	}
	if srv.Calls() <= calls {
		t.Errorf("the resumed run made no call")
	}
	// Finished: a third run makes no call.
	before := srv.Calls()
	if code, _, stderr := runWithKey(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge-config", cfg, "--budget", "0"); code != 0 || srv.Calls() != before {
		t.Errorf("finished re-run: exit %d, %d calls: %s", code, srv.Calls()-before, stderr)
	}
}

func TestJudgeUsage(t *testing.T) {
	dir, grading := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"judge", "--run", runDir}, 2, "--tasks and --run are required"},
		{[]string{"judge", "--tasks", dir, "--run", runDir}, 2, "exactly one of --judge"},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge", "replay:" + grading, "--judge-config", "x.yaml"}, 2, "exactly one of --judge"},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge", grading}, 2, "want replay:FILE"},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge", "replay:" + grading, "--mode", "lenient"}, 2, `unknown mode "lenient"`},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge", "replay:" + grading, "--samples", "3"}, 2, "need an LLM judge"},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge-config", filepath.Join(dir, "missing.yaml")}, 1, "missing.yaml"},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge-config", filepath.Join(dir, "missing.yaml"), "--samples", "2"}, 2, "--samples must be a positive odd number"},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge", "mock/demo", "--budget", "1"}, 2, "a budget needs a price table"},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge", "replay:" + grading, "--group", "task"}, 2, `grouping "task": want leaf, category or tree`},
		{[]string{"judge", "--tasks", dir, "--run", runDir, "--judge", "replay:" + grading, "--group", "leaf", "--group-gated"}, 2, "--group-gated needs --group category or tree"},
	} {
		code, _, stderr := runCLI(t, dir, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	// Leaf by leaf, each judged leaf is a call; into the same folder with
	// another grouping is refused.
	out := filepath.Join(dir, "out-leaf")
	code, stdout, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge", "replay:"+grading, "--group", "leaf")
	if code != 0 || !strings.Contains(stdout, "judge calls 13 (4.33 per task, grouping leaf) for 13 leaves") {
		t.Errorf("--group leaf: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", out, "--judge", "replay:"+grading, "--group-gated")
	if code != 1 || !strings.Contains(stderr, "grouping leaf, not tree+gated") {
		t.Errorf("other grouping: exit %d: %s", code, stderr)
	}
	badGroup := filepath.Join(dir, "bad-group.yaml")
	os.WriteFile(badGroup, []byte("endpoint: {name: x, kind: openai, model: m, api_key_env: K}\ngroup: leaves\n"), 0o644)
	if code, _, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--judge-config", badGroup); code != 1 || !strings.Contains(stderr, "bad-group.yaml") || !strings.Contains(stderr, "group") {
		t.Errorf("bad group in the config: exit %d: %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("endpoint:\n  name: x\n  kind: openai\n  model: m\n  temprature: 1\nsamples: 2\n"), 0o644)
	code, _, stderr = runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--judge-config", bad)
	if code != 1 || !strings.Contains(stderr, "bad.yaml") || !strings.Contains(stderr, "temprature") {
		t.Errorf("bad config: exit %d: %s", code, stderr)
	}
}

// TestJudgeSymlinkedResults (issue 25 #7): a run whose result CSVs are
// symbolic links (git-annex, DVC, cp -s) is refused with the files named
// and how to resolve the links, never scored as having no result (execution
// 0.00 with exit 0).
func TestJudgeSymlinkedResults(t *testing.T) {
	dir, grading := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	linked := 0
	err := filepath.WalkDir(runDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "result_") {
			return err
		}
		real := p + ".annexed"
		if err := os.Rename(p, real); err != nil {
			return err
		}
		linked++
		return os.Symlink(filepath.Base(real), p)
	})
	if err != nil || linked == 0 {
		t.Fatalf("linking results: %v (%d linked)", err, linked)
	}
	code, stdout, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--out", filepath.Join(dir, "judged"), "--judge", "replay:"+grading)
	if code == 0 || !strings.Contains(stderr, "cannot be read") || !strings.Contains(stderr, "cp -rL") {
		t.Errorf("judging a run of symlinked results: exit %d\n%s%s", code, stdout, stderr)
	}
}
