package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/reports"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// TestReportLabels reports the fixture grading with a label set that
// overturns two of its decisions and confirms two: the panel counts two
// wrong of four, two leaves changed, and the corrected execution score is
// the grading rescored with those two records changed by hand.
func TestReportLabels(t *testing.T) {
	dir, grading := fixtureRun(t)
	g, err := scoring.ReadGrading(grading)
	if err != nil {
		t.Fatal(err)
	}
	labels := overturnTwo(t, g)
	file := filepath.Join(dir, "labels.jsonl")
	writeLabels(t, file, labels)
	out := filepath.Join(dir, "report")
	code, stdout, stderr := runCLI(t, dir, "report", "--tasks", dir, "--out", out, "--grading", grading, "--labels", file, "--resamples", "100")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, reports.LeaderboardMD))
	if err != nil {
		t.Fatal(err)
	}
	_, panel, ok := strings.Cut(string(md), "## How accurate is this judge?")
	if !ok {
		t.Fatalf("no label panel in %s:\n%s", reports.LeaderboardMD, md)
	}
	// Model, labelled 4, arguable 0, undecided 0, decided 4, wrong 2.
	if !strings.Contains(panel, "| fixture-model | 4 | 0 | 0 | 4 | 2 | 50.0% [15.0, 85.0] |") {
		t.Errorf("accuracy row:\n%s", panel)
	}
	checkCorrectedScores(t, dir, grading, g, panel)
	html, err := os.ReadFile(filepath.Join(out, reports.ReportHTML))
	if err != nil || !strings.Contains(string(html), `<section id="labels">`) || !strings.Contains(string(html), "Leaderboard corrected by the labels") {
		t.Errorf("report.html lacks the label panel (%v)", err)
	}

	// Labels of no reported model are refused, naming the file.
	for i := range labels {
		labels[i].Model = "another-model"
	}
	writeLabels(t, file, labels)
	if code, _, stderr := runCLI(t, dir, "report", "--tasks", dir, "--out", out, "--grading", grading, "--labels", file); code == 0 || !strings.Contains(stderr, "no labelled leaf of the report's models") {
		t.Errorf("another model's labels: exit %d, %s", code, stderr)
	}
}

// overturnTwo labels four results leaves of the grading g: the first two
// against their recorded decision, which it changes in g by hand, the
// other two with it.
func overturnTwo(t *testing.T, g *scoring.Grading) []labelset.Label {
	t.Helper()
	var labels []labelset.Label
	changed := 0
	for i := range g.Evaluations {
		e := &g.Evaluations[i]
		k, err := datasets.ParseKey(e.SamplePath)
		if err != nil {
			t.Fatal(err)
		}
		for id, r := range e.ResultsEvaluations {
			if len(labels) == 4 || strings.HasPrefix(r.Explanation, "Aggregated") || strings.HasPrefix(r.Explanation, "Error") || r.NoScore {
				continue
			}
			label := map[bool]string{true: labelset.Pass, false: labelset.Fail}[r.Score == 1]
			if len(labels) < 2 { // overturn the first two
				label = map[bool]string{true: labelset.Fail, false: labelset.Pass}[r.Score == 1]
				r.Score = 1 - r.Score
				e.ResultsEvaluations[id] = r
				changed++
			}
			labels = append(labels, labelset.Label{Key: k, Model: "fixture-model", Tree: "results", Leaf: id, Label: label,
				Rationale: fmt.Sprintf("the fixture's label for %s", id), Chosen: labelset.Agreement, Seed: 1, Stratum: "agreement/fixture/m", Population: 4, Drawn: 4})
		}
	}
	if len(labels) != 4 || changed != 2 {
		t.Fatalf("%d labels, %d changed", len(labels), changed)
	}
	return labels
}

// checkCorrectedScores: the label panel's corrected scores are the
// hand-changed grading g's, in both modes, beside the recorded grading's.
func checkCorrectedScores(t *testing.T, dir, grading string, g *scoring.Grading, panel string) {
	t.Helper()
	tasks, err := datasets.LoadClinSQL(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []rubric.Mode{rubric.Strict, rubric.Reference} {
		want, err := scoring.Rescore(g, tasks, mode)
		if err != nil {
			t.Fatal(err)
		}
		orig, err := scoring.ReadGrading(grading)
		if err != nil {
			t.Fatal(err)
		}
		was, err := scoring.Rescore(orig, tasks, mode)
		if err != nil {
			t.Fatal(err)
		}
		var sum, sumWas float64
		for i, ts := range want.Tasks {
			sum += ts.Results.Value
			sumWas += was.Tasks[i].Results.Value
		}
		n := float64(len(want.Tasks))
		row := fmt.Sprintf("| fixture-model | %d | 2 |", len(want.Tasks))
		cells := fmt.Sprintf("| %.2f | %.2f | %+.2f |", 100*sumWas/n, 100*sum/n, 100*(sum-sumWas)/n)
		section := "validation split, " + map[rubric.Mode]string{rubric.Strict: "strict", rubric.Reference: "reference"}[mode] + " mode"
		_, sec, _ := strings.Cut(panel, section)
		line, _, _ := strings.Cut(sec[strings.Index(sec, row):], "\n")
		if !strings.Contains(line, cells) {
			t.Errorf("%s: corrected row %q, want exec %s", section, line, cells)
		}
	}
}
