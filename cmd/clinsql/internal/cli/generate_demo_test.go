package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/internal/testrace"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/refine/refinetest"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// goldOutcome is what a task's gold query does on the engine.
type goldOutcome int

const (
	goldRuns        goldOutcome = iota
	goldModelFault              // fails with a class charged to the SQL
	goldNotModelErr             // unsupported or infrastructure
)

// TestGenerateValidationOnDemo is the acceptance run: two models over the
// 190 validation tasks on the embedded engine with the MIMIC-IV demo,
// against a fake that returns each task's gold SQL, broken in its first
// refinetest.ErrsByIndex(i) answers. The attempt-wise success must equal
// what that schedule predicts given what each gold query itself does on
// the same engine (a few fail there; the expectation is computed, not
// typed).
func TestGenerateValidationOnDemo(t *testing.T) {
	dir, db, data, all := demoValidation(t)
	tasks, sel := raceSubset(t, all)

	// The gold queries on the engine the run uses (same opening code).
	gold, goldFails := goldOnEngine(t, db, tasks)
	sched := goldSchedule(tasks)
	srvA := llmtest.Start(t, sched.Handler(), llmtest.Options{APIKey: genKey})
	srvB := llmtest.Start(t, sched.Handler(), llmtest.Options{APIKey: genKey})
	models := writeModels(t, dir, map[string]string{"alpha": srvA.OpenAIBaseURL(), "beta": srvB.OpenAIBaseURL()})
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runGen(t, append(append([]string{"generate", "--models", models, "--tasks", data}, sel...),
		"--db", db, "--out", out, "--concurrency", "4", "--quiet")...)
	if code != 0 {
		t.Fatalf("generate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("\n%s", stdout)

	checkGeneratedRuns(t, out, tasks, gold)
	t.Logf("%d of %d gold queries fail on the engine", goldFails, len(tasks))

	// clinsql judge scores the run as it is.
	checkJudgedDemoRun(t, dir, data, filepath.Join(out, "alpha"), tasks)
}

// goldOnEngine runs each task's gold query on the demo database and says
// how it fails, if it does.
func goldOnEngine(t *testing.T, db string, tasks []*datasets.Task) (gold []goldOutcome, fails int) {
	t.Helper()
	ex, err := openEngine(context.Background(), duckdb.EngineName, engineConfig{DB: db, Conns: 2})
	if err != nil {
		t.Fatal(err)
	}
	gold = make([]goldOutcome, len(tasks))
	for i, tk := range tasks {
		if _, err := ex.Query(context.Background(), tk.GoldSQL); err != nil {
			gold[i] = goldNotModelErr
			if executor.ClassOf(err).ModelFault() {
				gold[i] = goldModelFault
			}
			fails++
			t.Logf("gold fails on the engine: %s: %v", tk.Key, err)
		}
	}
	ex.Close()

	return gold, fails
}

// checkGeneratedRuns checks each model's run against the schedule and
// the gold queries' outcomes.
func checkGeneratedRuns(t *testing.T, out string, tasks []*datasets.Task, gold []goldOutcome) {
	t.Helper()
	// Expected per task: success at attempt k+1 when the gold runs and
	// k+1 <= 3; never when the gold itself fails; excluded when the engine
	// cannot run it.
	wantAt := map[int]int{}
	wantTotal, wantExcluded := 0, 0
	wantStatus := make([]string, len(tasks))
	for i := range tasks {
		k := refinetest.ErrsByIndex(i)
		switch {
		case gold[i] == goldNotModelErr:
			wantExcluded++
			wantStatus[i] = refinefmt.StatusUnsupported
			continue
		case gold[i] == goldRuns && k <= 2:
			wantAt[k+1]++
			wantStatus[i] = "" // ok or empty, as the gold result is
		default:
			wantStatus[i] = refinefmt.StatusFailed
		}
		wantTotal++
	}
	for _, m := range []string{"alpha", "beta"} {
		run := filepath.Join(out, m)
		bs, err := runfolder.ReadBenchmarkSummary(run)
		if err != nil || bs == nil {
			t.Fatalf("%s: %v", run, err)
		}
		if bs.TotalQueries != wantTotal {
			t.Errorf("%s: total_queries %v, want %d", m, bs.TotalQueries, wantTotal)
		}
		counts := bs.Counts
		rates := bs.CumulativeRates
		for k := 1; k <= 3; k++ {
			if got := counts[strconv.Itoa(k)]; got != wantAt[k] {
				t.Errorf("%s: successes at attempt %d: %v, want %d", m, k, got, wantAt[k])
			}
		}
		t.Logf("%s: %d tasks counted, %d excluded; successes at attempts 1/2/3: %v/%v/%v; cumulative %%: %.1f/%.1f/%.1f",
			m, wantTotal, wantExcluded, counts["1"], counts["2"], counts["3"], rates["1"], rates["2"], rates["3"])
		outs, err := runfolder.LoadOutputs(run)
		if err != nil || len(outs) != len(tasks) {
			t.Fatalf("%s: LoadRun: %d outputs, %v", m, len(outs), err)
		}
		for i, tk := range tasks {
			sum, ok, err := refinefmt.ReadSummary(run, tk.Key)
			if err != nil || !ok {
				t.Fatalf("%s %s: %v", m, tk.Key, err)
			}
			st := sum.Clinsql.Status
			if w := wantStatus[i]; (w == "" && st != refinefmt.StatusOK && st != refinefmt.StatusEmpty) || (w != "" && st != w) {
				t.Errorf("%s %s: status %s, want %s (schedule %d, gold %d)", m, tk.Key, st, w, refinetest.ErrsByIndex(i), gold[i])
			}
		}
	}
}

// checkJudgedDemoRun judges a run with an always-pass LLM judge, so the
// scores show what the outputs themselves decide. A task whose query never
// ran has no result file, and its results score is 0 (the reference's
// placeholder CSV gave such tasks up to 0.889).
func checkJudgedDemoRun(t *testing.T, dir, data, run string, tasks []*datasets.Task) {
	t.Helper()
	judgeSrv := llmtest.Start(t, fakeJudge(func(string) string { return "pass" }), llmtest.Options{APIKey: genKey})
	judgeCfg := filepath.Join(dir, "judge.yaml")
	if err := os.WriteFile(judgeCfg, []byte("endpoint:\n  name: judge\n  kind: openai\n  base_url: "+judgeSrv.OpenAIBaseURL()+
		"\n  model: fake-judge\n  api_key_env: GEN_TEST_KEY\n  sampling: {temperature: 0, max_tokens: 300}\n"+
		"  capabilities: {json_schema: true}\n  limits: {concurrency: 16}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runGen(t, "judge", "--tasks", data, "--run", run, "--judge-config", judgeCfg)
	if code != 0 {
		t.Fatalf("judge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	g, err := scoring.ReadGrading(filepath.Join(run, "judge", "detailed_grading.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Evaluations) != len(tasks) {
		t.Fatalf("judge scored %d tasks", len(g.Evaluations))
	}
	failedZero, failed := 0, 0
	for _, e := range g.Evaluations {
		k, err := datasets.ParseKey(e.SamplePath)
		if err != nil {
			t.Fatalf("sample path %q: %v", e.SamplePath, err)
		}
		sum, _, _ := refinefmt.ReadSummary(run, k)
		if sum.Clinsql.Status == refinefmt.StatusFailed {
			failed++
			if e.ResultsScore == 0 {
				failedZero++
			}
		}
	}
	if failed == 0 || failedZero != failed {
		t.Errorf("%d of %d failed tasks have results score 0", failedZero, failed)
	}
	t.Logf("judge: %d tasks scored, %d judge calls; average SQL %.3f, execution %.3f",
		len(g.Evaluations), judgeSrv.Calls(), g.Summary.AverageSQLScore, g.Summary.AverageResultsScore)
	t.Logf("%d files checked for the API key", llmtest.AssertNoSecret(t, dir, genKey))
}

// demoValidation builds the demo database in a temporary folder and loads
// the 190 validation tasks (skipped without the shared data).
func demoValidation(t *testing.T) (dir, db, data string, tasks []*datasets.Task) {
	db = demoDB(t)
	data = shared.Path(t, "clinsql-data")
	dir = t.TempDir()
	tasks, _, err := loadGenerateTasks(&Env{Stderr: io.Discard}, data, &taskFilter{sel: datasets.Selection{Split: "validation"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 190 {
		t.Fatalf("%d validation tasks", len(tasks))
	}
	return dir, db, data, tasks
}

// raceSubset is the part of the validation split a test runs: all of it,
// or under the race detector every 8th task (testrace.Part), with the
// generate flags that select them. The run's subset travels in its
// manifest, so judge and report take it without flags.
func raceSubset(t *testing.T, all []*datasets.Task) (tasks []*datasets.Task, sel []string) {
	tasks = testrace.Part(t, all, 8)
	sel = []string{"--split", "validation"}
	if len(tasks) < len(all) {
		for _, tk := range tasks {
			sel = append(sel, "--task", tk.Key.String())
		}
	}
	return tasks, sel
}

// goldSchedule answers each task with its gold SQL, broken in its first
// refinetest.ErrsByIndex(i) answers.
func goldSchedule(tasks []*datasets.Task) *refinetest.Schedule {
	sched := &refinetest.Schedule{Right: map[string]string{}}
	index := map[string]int{}
	for i, tk := range tasks {
		sched.Right[tk.Question] = tk.GoldSQL
		index[tk.Question] = i
	}
	sched.Errs = func(q string) int { return refinetest.ErrsByIndex(index[q]) }
	return sched
}
