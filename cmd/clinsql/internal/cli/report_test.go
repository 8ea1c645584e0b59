package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/reports"
)

func TestReportCommand(t *testing.T) {
	dir, grading := fixtureRun(t)
	// A second model, graded stricter, so that ranking and the paired
	// difference have something to do.
	second := filepath.Join(dir, "second.json")
	err := fixtures.WriteGrading(second, "second-model", "validation", func(task fixtures.Task, leaf string, sql bool) (fixtures.Decision, bool) {
		if len(leaf)%3 == 0 {
			return fixtures.Decision{Score: 0, Explanation: "not met"}, true
		}
		return fixtures.Decision{Score: 1, Explanation: "met"}, true
	})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report")
	code, stdout, stderr := runCLI(t, dir, "report", "--tasks", dir, "--out", out, "--grading", grading, "--grading", second,
		"--seed", "3", "--resamples", "300", "--compare", "second-model,fixture-model")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	golden(t, "report.stdout", stdout)
	for _, f := range []string{reports.LeaderboardMD, reports.LeaderboardCSV, reports.TaxonomyMD, reports.RefinementMD, reports.ReportHTML, reports.ReportJSON,
		filepath.Join(reports.ModelSummaryDir, "fixture-model", "validation", "reference", "scoring_results.json")} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	csv, err := os.ReadFile(filepath.Join(out, reports.LeaderboardCSV))
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(csv), "\n"); !strings.HasPrefix(header, "model,split,difficulty,mode,rank,n,sql_score,") || !strings.Contains(header, ",exec_score,") {
		t.Errorf("leaderboard.csv header %q", header)
	}
	cmp, err := os.ReadFile(filepath.Join(out, reports.ComparisonsCSV))
	if err != nil || !strings.Contains(string(cmp), "second-model,fixture-model,strict,validation,all,3,") {
		t.Errorf("comparisons.csv:\n%s (%v)", cmp, err)
	}
}

func TestReportCommandErrors(t *testing.T) {
	dir, grading := fixtureRun(t)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no inputs", []string{"report", "--tasks", dir, "--out", dir}, 2, "give at least one --run, --judged or --grading"},
		{"no out", []string{"report", "--tasks", dir, "--grading", grading}, 2, "--tasks and --out are required"},
		{"bad mode", []string{"report", "--tasks", dir, "--out", dir, "--grading", grading, "--mode", "lenient"}, 2, `unknown mode "lenient"`},
		{"bad metric", []string{"report", "--tasks", dir, "--out", dir, "--grading", grading, "--rank-by", "speed"}, 2, `unknown metric "speed"`},
		{"bad threshold", []string{"report", "--tasks", dir, "--out", dir, "--grading", grading, "--correct-at", "1.5"}, 2, "--correct-at must be in (0, 1]"},
		{"bad compare", []string{"report", "--tasks", dir, "--out", dir, "--grading", grading, "--compare", "onlyone"}, 2, "two model names"},
		{"unknown model", []string{"report", "--tasks", dir, "--out", dir, "--grading", grading, "--compare", "fixture-model,ghost"}, 1, `no model "ghost"`},
		{"missing grading", []string{"report", "--tasks", dir, "--out", dir, "--grading", filepath.Join(dir, "nope.json")}, 1, "--grading $DIR/nope.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, dir, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
		})
	}
}

// TestJudgeThenReport is the path `make demo` takes: a run judged by
// clinsql judge (code checks and the replay backend) is reported with the
// recorded decisions of the same model beside it.
func TestJudgeThenReport(t *testing.T) {
	dir, grading := fixtureRun(t)
	runDir := writeModelRun(t, dir)
	if code, stdout, stderr := runCLI(t, dir, "judge", "--tasks", dir, "--run", runDir, "--judge", "replay:"+grading); code != 0 {
		t.Fatalf("judge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	out := filepath.Join(dir, "report")
	code, stdout, stderr := runCLI(t, dir, "report", "--tasks", dir, "--out", out, "--run", runDir, "--grading", grading,
		"--compare", "fixture-model (judge),fixture-model")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "fixture-model (judge)") || !strings.HasSuffix(stdout, "report: $DIR/report/report.html\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
	health, err := os.ReadFile(filepath.Join(out, reports.HealthCSV))
	if err != nil {
		t.Fatal(err)
	}
	// The judged run's leaves were decided in code and by replay; the
	// recorded model's by the reference judge.
	rows := strings.Split(strings.TrimSpace(string(health)), "\n")
	if len(rows) != 3 || !strings.Contains(string(health), `fixture-model (judge),"replay of ""fixture-model""'s recorded decisions`) {
		t.Fatalf("health.csv:\n%s", health)
	}
	html, err := os.ReadFile(filepath.Join(out, reports.ReportHTML))
	if err != nil || !strings.Contains(string(html), `data-model="fixture-model (judge)"`) {
		t.Errorf("report.html lacks the judged model (%v)", err)
	}
}
