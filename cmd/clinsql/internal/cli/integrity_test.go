package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/runfolder"
)

// Tests of issue "Integrity: every score belongs to the run, rubrics, judge
// and version that produced it". Each failed on the main of its day: a
// judge output was resumed for another run, replayed another model's
// decisions, scored a partial run as complete, and reached the leaderboard
// when it was partial; two judges shared one output folder.

// renameModel rewrites every execution summary of run to name model.
func renameModel(t *testing.T, run, model string) {
	t.Helper()
	err := filepath.Walk(run, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.Name() != runfolder.ExecutionSummaryFile {
			return err
		}
		b, _ := os.ReadFile(p)
		var s runfolder.ExecutionSummary
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		s.Model = model
		b, _ = json.Marshal(s)
		return os.WriteFile(p, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// firstTaskDir is the folder of the run's first validation fixture task.
func firstTaskDir(run string) (string, fixtures.Task) {
	for _, ft := range fixtures.Tasks() {
		if ft.Split == "validation" {
			return filepath.Join(run, ft.Path()), ft
		}
	}
	panic("no validation fixture")
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestJudgeResumeIsBoundToItsRun(t *testing.T) {
	dir, grading := fixtureRun(t)
	runA := writeModelRun(t, dir)
	runB := filepath.Join(dir, "runB")
	if err := os.CopyFS(runB, os.DirFS(runA)); err != nil {
		t.Fatal(err)
	}
	renameModel(t, runB, "other-model")
	out := filepath.Join(dir, "out")
	judgeInto := func(run string, extra ...string) (int, string, string) {
		args := append([]string{"judge", "--tasks", dir, "--run", run, "--out", out, "--judge", "replay:" + grading, "--replay-other-model"}, extra...)
		return runCLI(t, dir, args...)
	}
	if code, _, stderr := judgeInto(runA); code != 0 {
		t.Fatalf("run A: exit %d: %s", code, stderr)
	}
	// Another run into the same output folder: refused, naming both.
	code, _, stderr := judgeInto(runB)
	if code != 1 || !strings.Contains(stderr, `"fixture-model"`) || !strings.Contains(stderr, `"other-model"`) || !strings.Contains(stderr, "new output folder") {
		t.Errorf("run B into A's output: exit %d: %s", code, stderr)
	}
	// The same run with one answer changed is another run too.
	td, ft := firstTaskDir(runA)
	if err := os.WriteFile(filepath.Join(td, datasets.GoldResultFile(ft.ID)), []byte("changed\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = judgeInto(runA)
	if code != 1 || !strings.Contains(stderr, "other answers") {
		t.Errorf("changed run A: exit %d: %s", code, stderr)
	}
	// The summary says which run, tasks and judge the scores belong to.
	s := readJSON(t, filepath.Join(out, judgefmt.SummaryFile))
	run, _ := s["run"].(map[string]any)
	if run["model"] != "fixture-model" || run["answers_sha256"] == "" || s["tasks_sha256"] == "" ||
		!strings.HasPrefix(s["backend"].(string), "replay:sha256:") || s["producer"] == nil {
		t.Errorf("judge_summary.json bindings: run %v tasks %v backend %v producer %v", s["run"], s["tasks_sha256"], s["backend"], s["producer"])
	}
}

func TestJudgeReplayOfAnotherModelRefused(t *testing.T) {
	dir, grading := fixtureRun(t)
	run := writeModelRun(t, dir)
	renameModel(t, run, "gpt-4.1")
	args := []string{"judge", "--tasks", dir, "--run", run, "--out", filepath.Join(dir, "out"), "--judge", "replay:" + grading}
	code, _, stderr := runCLI(t, dir, args...)
	if code != 1 || !strings.Contains(stderr, `about model "fixture-model"`) || !strings.Contains(stderr, `holds model "gpt-4.1"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", judgefmt.LedgerFile)); err == nil {
		t.Error("a refused judge wrote a ledger")
	}
	code, _, stderr = runCLI(t, dir, append(args, "--replay-other-model")...)
	if code != 0 || !strings.Contains(stderr, "--replay-other-model") {
		t.Errorf("on purpose: exit %d: %s", code, stderr)
	}
}

func TestJudgePartialRun(t *testing.T) {
	dir, grading := fixtureRun(t)
	run := writeModelRun(t, dir)
	td, _ := firstTaskDir(run)
	hidden := filepath.Join(dir, "hidden")
	if err := os.Rename(td, hidden); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := []string{"judge", "--tasks", dir, "--run", run, "--out", out, "--judge", "replay:" + grading}
	code, _, stderr := runCLI(t, dir, args...)
	if code != 1 || !strings.Contains(stderr, "is partial: 1 of 3 tasks") || !strings.Contains(stderr, "--allow-partial") {
		t.Fatalf("partial run: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, dir, append(args, "--allow-partial")...)
	if code != 0 || !strings.Contains(stdout, "PARTIAL") || !strings.Contains(stdout, "validation: 2 tasks") {
		t.Fatalf("--allow-partial: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if s := readJSON(t, filepath.Join(out, judgefmt.SummaryFile)); s["completeness"] != "partial" || len(s["missing_tasks"].([]any)) != 1 {
		t.Errorf("judge_summary.json: completeness %v, missing %v", s["completeness"], s["missing_tasks"])
	}
	for _, f := range []string{"scoring_results.json", "difficulty_scoring_results.json", "scenario_scoring_results.json"} {
		if b, _ := os.ReadFile(filepath.Join(out, f)); !strings.Contains(string(b), `"completeness": "partial"`) {
			t.Errorf("%s is not marked partial", f)
		}
	}
	// The report refuses the partial output, or flags it on request.
	rep := filepath.Join(dir, "report")
	if err := os.Rename(out, filepath.Join(run, "judge")); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, dir, "report", "--tasks", dir, "--run", run, "--out", rep)
	if code != 1 || !strings.Contains(stderr, "is partial") || !strings.Contains(stderr, "--include-incomplete") {
		t.Errorf("report of a partial output: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, dir, "report", "--tasks", dir, "--run", run, "--out", rep, "--include-incomplete")
	if code != 0 {
		t.Fatalf("report --include-incomplete: exit %d: %s", code, stderr)
	}
	for _, f := range []string{"leaderboard.md", "leaderboard.csv", "report.html"} {
		if b, _ := os.ReadFile(filepath.Join(rep, f)); !strings.Contains(string(b), "fixture-model [partial]") {
			t.Errorf("%s does not flag the partial model", f)
		}
	}
	// Generation finishes: the partial output is not resumed as the
	// finished run's.
	if err := os.Rename(hidden, td); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runCLI(t, dir, "judge", "--tasks", dir, "--run", run, "--judge", "replay:"+grading)
	if code != 1 || !strings.Contains(stderr, "other answers") {
		t.Errorf("finished run into the partial output: exit %d: %s", code, stderr)
	}
	code, stdout, stderr = runCLI(t, dir, "judge", "--tasks", dir, "--run", run, "--out", filepath.Join(dir, "fresh"), "--judge", "replay:"+grading)
	if code != 0 || strings.Contains(stdout, "PARTIAL") || !strings.Contains(stdout, "validation: 3 tasks") {
		t.Errorf("fresh: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

func TestInterruptedJudgeNotRanked(t *testing.T) {
	dir, _ := fixtureRun(t)
	run := writeModelRun(t, dir)
	srv := llmtest.Start(t, fakeJudge(func(string) string { return "pass" }), llmtest.Options{APIKey: "secret"})
	cfg := writeJudgeConfig(t, dir, srv.OpenAIBaseURL())
	code, _, stderr := runWithKey(t, dir, "judge", "--tasks", dir, "--run", run, "--judge-config", cfg, "--budget", "0.000001", "--concurrency", "1")
	if code != exitIncomplete {
		t.Fatalf("budget stop: exit %d: %s", code, stderr)
	}
	if s := readJSON(t, filepath.Join(run, "judge", judgefmt.SummaryFile)); s["completeness"] != "interrupted" {
		t.Errorf("completeness %v", s["completeness"])
	}
	code, _, stderr = runCLI(t, dir, "report", "--tasks", dir, "--run", run, "--out", filepath.Join(dir, "report"))
	if code != 1 || !strings.Contains(stderr, "is interrupted") {
		t.Errorf("report of an interrupted output: exit %d: %s", code, stderr)
	}
}

// writeJudgeConfig writes a judge config for the fake endpoint at base.
func writeJudgeConfig(t *testing.T, dir, base string) string {
	t.Helper()
	cfg := filepath.Join(dir, "judge.yaml")
	os.WriteFile(filepath.Join(dir, "prices.yaml"), []byte("prices:\n  judge-test: {prompt: 1000, completion: 1000}\n"), 0o644)
	err := os.WriteFile(cfg, []byte(`endpoint:
  name: fake
  kind: openai
  base_url: `+base+`
  model: judge-test
  api_key_env: FAKE_JUDGE_KEY
  sampling: {temperature: 0, max_tokens: 200}
  capabilities: {json_schema: true}
  limits: {concurrency: 2}
  retry: {max_attempts: 2, base_delay: 1ms}
prices: prices.yaml
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestTwoJudgesOneOutput(t *testing.T) {
	dir, _ := fixtureRun(t)
	run := writeModelRun(t, dir)
	// The fake answers no call until the second judge has ended: the
	// second is refused while the first holds the folder (waiting for the
	// lock instead would hang the test), with no bound in wall time a
	// loaded machine could break.
	release, called := make(chan struct{}), make(chan struct{})
	var first sync.Once
	judge := fakeJudge(func(string) string { return "pass" })
	srv := llmtest.Start(t, func(c *llmtest.Call) llmtest.Reply {
		first.Do(func() { close(called) })
		<-release
		return judge(c)
	}, llmtest.Options{APIKey: "secret"})
	cfg := writeJudgeConfig(t, dir, srv.OpenAIBaseURL())
	out := filepath.Join(dir, "out")
	args := []string{"judge", "--tasks", dir, "--run", run, "--out", out, "--judge-config", cfg, "--group", "leaf", "--concurrency", "1"}
	type result struct {
		code   int
		stderr string
	}
	var one result
	done := make(chan struct{})
	go func() {
		defer close(done)
		one.code, _, one.stderr = runWithKey(t, dir, args...)
	}()
	// The second starts while the first is judging: its first call is
	// held.
	select {
	case <-called:
	case <-done:
		t.Fatalf("first: ended before its first call: exit %d: %s", one.code, one.stderr)
	}
	var second result
	second.code, _, second.stderr = runWithKey(t, dir, args...)
	close(release)
	<-done
	if one.code != 0 {
		t.Fatalf("first: exit %d: %s", one.code, one.stderr)
	}
	if second.code != 1 || !strings.Contains(second.stderr, "in use by another clinsql process") || !strings.Contains(second.stderr, "pid ") {
		t.Errorf("second: exit %d: %s", second.code, second.stderr)
	}
	c, err := judgefmt.ReadLedger(filepath.Join(out, judgefmt.LedgerFile))
	if err != nil || c.Torn {
		t.Fatalf("ledger: %v (torn %v)", err, c != nil && c.Torn)
	}
	seen := map[judgefmt.LeafKey]bool{}
	for _, r := range c.Records {
		if seen[r.Key()] {
			t.Errorf("leaf %v decided twice", r.Key())
		}
		seen[r.Key()] = true
	}
}

func TestGeneratePartialRunAndLock(t *testing.T) {
	db := buildMini(t)
	dir, grading := fixtureRun(t)
	sql := "SELECT gender, COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients` GROUP BY gender ORDER BY gender"
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("```sql\n"+sql+"\n```")), llmtest.Options{APIKey: genKey})
	models := writeModels(t, dir, map[string]string{"alpha": srv.OpenAIBaseURL()})
	out := filepath.Join(dir, "gen")
	gen := []string{"generate", "--models", models, "--tasks", dir, "--split", "validation", "--db", db, "--out", out, "--quiet"}
	if code, _, stderr := runGen(t, append(gen, "--limit", "1")...); code != 0 {
		t.Fatalf("generate --limit 1: exit %d: %s", code, stderr)
	}
	run := filepath.Join(out, "alpha")
	m := readJSON(t, filepath.Join(run, "manifest.json"))
	if m["complete"] != true || m["subset"] != true || m["model"] != "alpha" || m["tasks_sha256"] == "" {
		t.Errorf("manifest after --limit 1: %v", m)
	}
	if eng, _ := m["engine"].(map[string]any); eng["name"] == "" || eng["database"] == "" || eng["semantics"] == "" ||
		eng["patients"] != 3.0 || eng["sample"] != true || eng["source"] != "mimic-iv" || eng["source_sha256"] == nil {
		t.Errorf("manifest engine: %v", m["engine"])
	}
	// The judge takes the run's subset: no flag typed again, no refusal.
	judgeArgs := []string{"judge", "--tasks", dir, "--run", run, "--judge", "replay:" + grading, "--replay-other-model"}
	if code, stdout, stderr := runCLI(t, dir, judgeArgs...); code != 0 || !strings.Contains(stdout, "SUBSET") ||
		!strings.Contains(stderr, "subset: 1 tasks (the run's subset: --split validation --limit 1)") {
		t.Errorf("judge of a --limit run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if sel, _ := m["selection"].(map[string]any); sel["limit"] != 1.0 || sel["split"] != "validation" {
		t.Errorf("manifest selection: %v", m["selection"])
	}
	// A second writer on the same run folder is refused at once.
	lock, err := runfolder.LockExclusive(run)
	if err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGen(t, gen...)
	lock.Release()
	if code != 1 || !strings.Contains(stderr, "in use by another clinsql process") {
		t.Errorf("generate on a locked folder: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runGen(t, gen...); code != 0 {
		t.Fatalf("generate to the end: exit %d: %s", code, stderr)
	}
	if m := readJSON(t, filepath.Join(run, "manifest.json")); m["complete"] != true || len(m["tasks"].([]any)) != 3 || m["subset"] != nil || m["selection"] != nil {
		t.Errorf("manifest after the whole split: %v", m)
	}
	judgeArgs = append(judgeArgs, "--out", filepath.Join(dir, "judge-all"))
	if code, stdout, stderr := runCLI(t, dir, judgeArgs...); code != 0 || !strings.Contains(stdout, "validation: 3 tasks") || strings.Contains(stdout, "SUBSET") {
		t.Errorf("judge of the finished run: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// A run folder from elsewhere cannot make the judge read files outside it,
// hang on a FIFO or exhaust memory on a device: the run is refused (exit
// 1), naming each such result, rather than judged with them as empty
// answers (a wrong score with exit 0).
func TestJudgeRefusesHostileResultFiles(t *testing.T) {
	dir, grading := fixtureRun(t)
	run := writeModelRun(t, dir)
	secret := filepath.Join(dir, "secret.csv")
	os.WriteFile(secret, []byte("name\nTOP-SECRET-VALUE\n"), 0o644)
	var hostile []string
	i := 0
	for _, ft := range fixtures.Tasks() {
		if ft.Split != "validation" {
			continue
		}
		p := filepath.Join(run, ft.Path(), datasets.GoldResultFile(ft.ID))
		os.Remove(p)
		switch i {
		case 0:
			os.Symlink(secret, p)
		case 1:
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			os.Symlink("/dev/zero", p)
		}
		hostile = append(hostile, p)
		i++
	}
	out := filepath.Join(dir, "out")
	done := make(chan struct{})
	var code int
	var stdout, stderr string
	go func() {
		defer close(done)
		code, stdout, stderr = runCLI(t, dir, "judge", "--tasks", dir, "--run", run, "--out", out, "--judge", "replay:"+grading)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Minute): // a guard against a hang, not a measure
		t.Fatal("judge hangs on a hostile run folder")
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, stdout, stderr)
	}
	for _, p := range hostile {
		if !strings.Contains(stderr, strings.ReplaceAll(p, dir, "$DIR")) {
			t.Errorf("stderr does not name %s:\n%s", p, stderr)
		}
	}
	filepath.Walk(out, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "TOP-SECRET-VALUE") {
				t.Errorf("%s holds the linked file's content", p)
			}
		}
		return nil
	})
}

// A release that holds only result_<id>.csv per task is judged: results
// leaves from the CSVs, SQL leaves by the backend (here the recorded
// decisions), never failed for an SQL text that was not released.
func TestJudgeCSVOnlyRun(t *testing.T) {
	dir, grading := fixtureRun(t)
	run := writeModelRun(t, dir)
	for _, ft := range fixtures.Tasks() {
		if ft.Split == "validation" {
			os.Remove(filepath.Join(run, ft.Path(), runfolder.ExecutionSummaryFile))
		}
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", run, "--out", out, "--judge", "replay:"+grading, "--replay-other-model")
	if code != 0 || !strings.Contains(stdout, "validation: 3 tasks") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	c, err := judgefmt.ReadLedger(filepath.Join(out, judgefmt.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	sources := map[judgefmt.Tree]map[judgefmt.Source]int{judgefmt.TreeSQL: {}, judgefmt.TreeResults: {}}
	for _, r := range c.Records {
		sources[r.Tree][r.Source]++
		if r.Tree == judgefmt.TreeSQL && strings.Contains(r.Explanation, "no SQL was produced") {
			t.Errorf("%s %s: %s", r.Task, r.Leaf, r.Explanation)
		}
	}
	if sources[judgefmt.TreeSQL][judgefmt.SourceReplay] == 0 || sources[judgefmt.TreeResults][judgefmt.SourceCode] == 0 {
		t.Errorf("sources %v", sources)
	}
}

// A partial judge output cannot be rescored or replayed into scores that
// pass for the whole run's.
func TestIncompleteGradingRefused(t *testing.T) {
	dir, grading := fixtureRun(t)
	run := writeModelRun(t, dir)
	td, _ := firstTaskDir(run)
	os.RemoveAll(td)
	out := filepath.Join(dir, "out")
	if code, _, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", run, "--out", out, "--judge", "replay:"+grading, "--allow-partial"); code != 0 {
		t.Fatalf("judge --allow-partial: exit %d: %s", code, stderr)
	}
	partial := filepath.Join(out, judgefmt.GradingFile)
	code, _, stderr := runCLI(t, dir, "rescore", "--grading", partial, "--tasks", dir, "--out", filepath.Join(dir, "rescored"))
	if code != 1 || !strings.Contains(stderr, "the grading is partial") {
		t.Errorf("rescore of a partial grading: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, dir, "judge", "--tasks", dir, "--run", run, "--out", filepath.Join(dir, "again"), "--judge", "replay:"+partial, "--allow-partial")
	if code != 1 || !strings.Contains(stderr, "the grading is partial") {
		t.Errorf("replay of a partial grading: exit %d: %s", code, stderr)
	}
}

// A judge run over part of a run's tasks (--task) is a subset: marked in
// every output; a report over the runs takes that subset as its own
// (labelled "Subset", no marker on the name); runs judged on different
// subsets are refused unless the flags choose tasks every model covers.
func TestJudgeSubsetFlagged(t *testing.T) {
	dir, grading := fixtureRun(t)
	run := writeModelRun(t, dir)
	_, ft := firstTaskDir(run)
	code, stdout, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", run, "--judge", "replay:"+grading, "--replay-other-model", "--task", ft.Path())
	if code != 0 || !strings.Contains(stdout, "SUBSET") || !strings.Contains(stdout, "validation: 1 tasks") {
		t.Fatalf("judge --task: exit %d\n%s\n%s", code, stdout, stderr)
	}
	out := filepath.Join(run, "judge")
	if s := readJSON(t, filepath.Join(out, judgefmt.SummaryFile)); s["completeness"] != "subset" || s["subset"] == "" {
		t.Errorf("judge_summary.json: completeness %v, subset %v", s["completeness"], s["subset"])
	}
	if b, _ := os.ReadFile(filepath.Join(out, "scoring_results.json")); !strings.Contains(string(b), `"completeness": "subset"`) {
		t.Error("scoring_results.json is not marked subset")
	}
	rep := filepath.Join(dir, "report")
	code, _, stderr = runCLI(t, dir, "report", "--tasks", dir, "--run", run, "--out", rep)
	if code != 0 || !strings.Contains(stderr, "subset: 1 tasks (--task "+ft.Path()+")") {
		t.Fatalf("report over the judged subset: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(rep, "leaderboard.csv")); strings.Contains(string(b), "[subset]") || !strings.Contains(string(b), "--task "+ft.Path()) {
		t.Errorf("leaderboard.csv: a marker on the name, or no subset column:\n%s", b)
	}

	// A second run judged on another task: the two subsets differ.
	other := filepath.Join(dir, "other")
	if err := os.CopyFS(other, os.DirFS(run)); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(other, "judge"))
	var second fixtures.Task
	for _, f := range fixtures.Tasks() {
		if f.Split == "validation" && f.Path() != ft.Path() {
			second = f
			break
		}
	}
	if code, _, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", other, "--judge", "replay:"+grading, "--replay-other-model", "--task", second.Path()); code != 0 {
		t.Fatalf("judge the other run: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, dir, "report", "--tasks", dir, "--run", run, "--run", other, "--out", rep)
	if code != 1 || !strings.Contains(stderr, "other tasks") || !strings.Contains(stderr, "report them apart") {
		t.Errorf("runs judged on different subsets: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, dir, "report", "--tasks", dir, "--run", run, "--run", other, "--out", rep, "--task", ft.Path())
	if code != 1 || !strings.Contains(stderr, "lacks 1 of the report's tasks") || !strings.Contains(stderr, "report over the tasks it was judged on") {
		t.Errorf("a model that lacks the chosen task: exit %d: %s", code, stderr)
	}
	code, _, stderr = runCLI(t, dir, "report", "--tasks", dir, "--run", run, "--out", rep, "--task", second.Path())
	if code != 1 || !strings.Contains(stderr, "no such task in --tasks among the 1 tasks of --run $DIR/run") {
		t.Errorf("a task outside the run's subset: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, dir, "report", "--tasks", dir, "--run", run, "--run", other, "--out", rep, "--include-incomplete", "--task", ft.Path(), "--task", second.Path()); code != 0 {
		t.Errorf("report --include-incomplete: exit %d: %s", code, stderr)
	} else if b, _ := os.ReadFile(filepath.Join(rep, "leaderboard.csv")); !strings.Contains(string(b), "[subset]") {
		t.Errorf("leaderboard.csv does not flag the subset included on purpose:\n%s", b)
	}
}
