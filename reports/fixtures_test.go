package reports

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/runfolder"
)

// The generated report fixture: the four fixture tasks, two models graded on
// both splits (one grading file per split, as the reference writes them) and
// a run folder per model. Model beta-coder carries what a report must
// survive: a recorded judge error scored 1, an unreadable JSON reply, a
// missing decision, a hostile SQL and a hostile explanation.

const (
	hostileSQL  = "SELECT 1 AS x; -- </script><script>window.__pwned = 1;</script><b>bold</b>"
	hostileExpl = `The column is right <img src=x onerror="window.__pwned=2"> & the band fits.`
	// hostileTask is where beta-coder's hostile SQL and explanation sit.
	hostileTask = "validation/Vital_Signs_Monitoring/hard_level_queries/002"
	hostileLeaf = "share-plausible"
)

// passes decides a fixture leaf deterministically: a hash of model, task and
// leaf against a pass rate.
func passes(model, task, leaf string, rate uint32) bool {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%s|%s", model, task, leaf)
	return h.Sum32()%100 < rate
}

type fixtureSet struct {
	root     string // holds data/splits
	tasks    []*datasets.Task
	gradings []string
	runs     []string
}

func writeFixtureSet(t testing.TB) *fixtureSet {
	t.Helper()
	dir := t.TempDir()
	fs := &fixtureSet{root: filepath.Join(dir, "clinsql")}
	if _, err := fixtures.WriteClinSQL(fs.root); err != nil {
		t.Fatal(err)
	}
	tasks, err := datasets.LoadClinSQL(fs.root)
	if err != nil {
		t.Fatal(err)
	}
	fs.tasks = tasks
	for _, model := range []struct {
		name string
		rate uint32
	}{{"alpha-sql", 80}, {"beta-coder", 55}} {
		for _, split := range []string{"validation", "test"} {
			p := filepath.Join(dir, "eval", model.name, split, "detailed_grading.json")
			must(t, os.MkdirAll(filepath.Dir(p), 0o755))
			err := fixtures.WriteGrading(p, model.name, split, func(task fixtures.Task, leaf string, sql bool) (fixtures.Decision, bool) {
				key := filepath.ToSlash(task.Path())
				if model.name == "beta-coder" {
					switch {
					case key == hostileTask && leaf == hostileLeaf:
						return fixtures.Decision{Score: 1, Explanation: hostileExpl}, true
					case key == hostileTask && leaf == "share-acceptable":
						return fixtures.Decision{Score: 1, Explanation: "Error: Error code: 429 - {'error': {'message': 'Rate limit reached, retry after 1s'}}"}, true
					case key == "validation/Laboratory_Results_Analysis/medium_level_queries/001" && leaf == "median":
						return fixtures.Decision{Score: 1, Explanation: "{\"Score\": 0, \"Explanation\": \"computes a mean, not the median\"}"}, true
					case key == "validation/Laboratory_Results_Analysis/medium_level_queries/001" && leaf == "row-number":
						return fixtures.Decision{}, false // no decision recorded
					}
				}
				if passes(model.name, key, leaf, model.rate) {
					return fixtures.Decision{Score: 1, Explanation: fmt.Sprintf("%s: %s is satisfied.", model.name, leaf)}, true
				}
				return fixtures.Decision{Score: 0, Explanation: fmt.Sprintf("%s: %s is not satisfied.", model.name, leaf)}, true
			})
			must(t, err)
			fs.gradings = append(fs.gradings, p)
		}
		fs.runs = append(fs.runs, writeFixtureRun(t, filepath.Join(dir, "runs", model.name), model.name))
	}
	return fs
}

// writeFixtureRun writes a run folder in the reference inference layout.
// alpha-sql runs every task at the first attempt but one, rescued at the
// second; beta-coder needs refinement, fails one task on every attempt,
// writes the hostile SQL and abstains on the test task.
func writeFixtureRun(t testing.TB, dir, model string) string {
	t.Helper()
	type attempt struct {
		Attempt  int      `json:"attempt"`
		Success  bool     `json:"success"`
		RowCount int      `json:"row_count"`
		Error    *string  `json:"error"`
		Warnings []string `json:"warnings,omitempty"`
	}
	errText := func(s string) *string { return &s }
	bench := map[string]map[string]int{}
	for _, task := range fixtures.Tasks() {
		key := filepath.ToSlash(task.Path())
		sql := task.SQL
		var atts []attempt
		result := task.Result
		switch {
		case model == "alpha-sql" && key == "validation/Laboratory_Results_Analysis/medium_level_queries/001":
			atts = []attempt{{1, false, 0, errText("Unrecognized name: valuenum_x at [3:5]"), nil}, {2, true, 1, nil, nil}}
		case model == "alpha-sql" && key == "validation/Vital_Signs_Monitoring/hard_level_queries/002":
			// Ran on a sample database only with a division by zero given NULL.
			atts = []attempt{{1, true, 1, nil, []string{`BigQuery would fail here with "division by zero: 0 / 0"; on this sample database every division by zero gave NULL instead`}}}
		case model == "alpha-sql":
			atts = []attempt{{1, true, 1, nil, nil}}
		case key == hostileTask:
			sql = hostileSQL
			atts = []attempt{{1, false, 0, errText("Syntax error: Unexpected \"<\" at [1:20]"), nil}, {2, false, 0, errText("still <broken>"), nil}, {3, true, 1, nil, nil}}
		case task.Split == "test":
			// beta-coder abstains: its final SQL is the marker, never run.
			sql, result = "null", "result\n\"\"\n"
		case key == "validation/Diagnostic_Procedures/easy_level_queries/001":
			atts = []attempt{{1, false, 0, errText("Table not found: procedures"), nil}, {2, false, 0, errText("Table not found: procedures"), nil}, {3, false, 0, errText("Table not found: procedures"), nil}}
			result = "result\n\"\"\n"
		default:
			atts = []attempt{{1, true, 1, nil, nil}}
		}
		success, first := false, 0
		for _, a := range atts {
			if a.Success {
				success, first = true, a.Attempt
				break
			}
		}
		summary := map[string]any{"query": task.Question, "final_sql": sql, "execution_success": success, "row_count": 1,
			"final_error": nil, "model": model, "refinement_attempts": atts}
		b, err := json.MarshalIndent(summary, "", "  ")
		must(t, err)
		td := filepath.Join(dir, task.Path())
		must(t, os.MkdirAll(td, 0o755))
		must(t, os.WriteFile(filepath.Join(td, runfolder.ExecutionSummaryFile), b, 0o644))
		must(t, os.WriteFile(filepath.Join(td, "result_"+task.ID+".csv"), []byte(result), 0o644))
		if bench[task.Split] == nil {
			bench[task.Split] = map[string]int{}
		}
		bench[task.Split]["total"]++
		for k := 1; k <= 3; k++ {
			if success && first <= k {
				bench[task.Split][fmt.Sprint(k)]++
			}
		}
	}
	if model == "alpha-sql" {
		// alpha-sql ran on the 100-patient demo through the embedded
		// engine (its warnings say so); beta-coder's run has no manifest,
		// as the released BigQuery runs.
		must(t, runfolder.WriteManifest(dir, &runfolder.Manifest{Benchmark: "clinsql", Model: model, Command: "generate",
			Splits: []string{"test", "validation"}, Complete: true,
			Engine: runfolder.Engine{Name: "duckdb", Semantics: "division_by_zero=null",
				DatabaseFacts: runfolder.DatabaseFacts{Patients: 100, Sample: true, Source: "mimic-iv-demo"}}}))
		splits := map[string]any{}
		for s, c := range bench {
			splits[s] = map[string]any{"total_queries": c["total"],
				"attempt_cumulative_success_counts": map[string]int{"1": c["1"], "2": c["2"], "3": c["3"]}}
		}
		b, err := json.Marshal(map[string]any{"model": model, "splits": splits})
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, runfolder.BenchmarkSummaryFile), b, 0o644))
	}
	return dir
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func buildFixtureReport(t testing.TB, fs *fixtureSet, opt Options) *Report {
	t.Helper()
	opt.Tasks = fs.tasks
	opt.Gradings = fs.gradings
	opt.Runs = fs.runs
	if opt.Bootstrap.Resamples == 0 {
		opt.Bootstrap = Bootstrap{Seed: 7, Resamples: 500}
	}
	r, err := Build(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func containsAll(s string, subs ...string) (string, bool) {
	for _, x := range subs {
		if !strings.Contains(s, x) {
			return x, false
		}
	}
	return "", true
}
