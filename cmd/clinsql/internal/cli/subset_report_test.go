package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/reports"
	"github.com/clinsql/clinsql/scoring"
)

// TestReportAndRescoreSubsets: report and rescore take the subset filters
// of exec, generate and judge (and a part of the tree as --tasks); they
// score the grading's decisions about those tasks only (not "no task ... in
// the task folder" for every other task of the grading), and every output
// says it is a subset.
func TestReportAndRescoreSubsets(t *testing.T) {
	dir, grading := fixtureRun(t)
	ft := fixtures.Tasks()[1]
	key := ft.Split + "/" + ft.Domain + "/" + ft.Level + "/" + ft.ID
	for _, tc := range []struct {
		name string
		args []string
		want string // in the subset's description
	}{
		{"--task", []string{"--tasks", dir, "--task", key}, "--task " + key},
		{"--domain --limit", []string{"--tasks", dir, "--domain", ft.Domain, "--limit", "1"}, "--domain " + ft.Domain + " --limit 1"},
		{"a task folder", []string{"--tasks", filepath.Join(dir, "data", "splits", filepath.FromSlash(key))}, "(one task)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runCLI(t, dir, append([]string{"rescore", "--grading", grading, "--out", out}, tc.args...)...)
			if code != 0 {
				t.Fatalf("rescore: exit %d\n%s\n%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "subset: 1 tasks") {
				t.Errorf("rescore does not say it scored a subset:\n%s", stderr)
			}
			var sum struct {
				Subset string `json:"subset"`
				Tasks  int    `json:"tasks"`
			}
			b, _ := os.ReadFile(filepath.Join(out, scoring.RescoreSummaryFile))
			if err := json.Unmarshal(b, &sum); err != nil || sum.Tasks != 1 || !strings.Contains(sum.Subset, tc.want) {
				t.Errorf("rescore_summary.json: tasks %d, subset %q (%v); want 1 task and %q", sum.Tasks, sum.Subset, err, tc.want)
			}
			sr, _ := os.ReadFile(filepath.Join(out, "scoring_results.json"))
			if !strings.Contains(string(sr), `"completeness": "subset"`) || !strings.Contains(string(sr), `"total_samples": 1,`) {
				t.Errorf("scoring_results.json does not say subset, or scores other tasks:\n%s", sr)
			}

			rep := t.TempDir()
			code, stdout, stderr = runCLI(t, dir, append([]string{"report", "--grading", grading, "--out", rep, "--resamples", "50"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
			}
			if strings.Contains(stderr, "warning:") {
				t.Errorf("report over a subset warns about the other tasks:\n%s", stderr)
			}
			var rj struct {
				Subset      string `json:"subset"`
				Leaderboard []struct {
					N          int    `json:"total_samples"`
					Difficulty string `json:"difficulty"`
					Scenario   string `json:"scenario"`
				} `json:"leaderboard"`
			}
			b, _ = os.ReadFile(filepath.Join(rep, reports.ReportJSON))
			if err := json.Unmarshal(b, &rj); err != nil || !strings.Contains(rj.Subset, tc.want) {
				t.Errorf("report.json subset %q (%v), want %q", rj.Subset, err, tc.want)
			}
			for _, c := range rj.Leaderboard {
				if c.Difficulty == reports.All && c.Scenario == reports.All && c.N != 1 {
					t.Errorf("report.json: %d tasks in the leaderboard, want 1", c.N)
				}
			}
			for f, want := range map[string]string{
				reports.LeaderboardMD:  "> **Caveat:** Subset: 1 tasks (",
				reports.ReportHTML:     `<p class="caveat">Subset: 1 tasks (`,
				reports.LeaderboardCSV: tc.want,
			} {
				if b, _ := os.ReadFile(filepath.Join(rep, f)); !strings.Contains(string(b), want) {
					t.Errorf("%s does not flag the subset (%q)", f, want)
				}
			}
		})
	}
}
