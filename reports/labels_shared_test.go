package reports

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/datasets/labels"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/rubric"
)

// correctedGolden is the published leaderboard corrected by the label set
// (reference mode, the published scores beside the corrected ones), the
// table the README states (TestReadmeCorrectedLeaderboard).
const correctedGolden = "labels-corrected.md"

// TestCorrectedLeaderboard reports the 16 released models' recorded
// validation decisions with the adjudicated label set: the recorded
// judge's accuracy per model and the leaderboard with each labelled leaf
// taking its label. The judged columns are the published figures (Table
// 4, checked by TestPublishedTable4).
func TestCorrectedLeaderboard(t *testing.T) {
	data := shared.Path(t, "clinsql-data")
	gradings, err := filepath.Glob(filepath.Join(data, "outputs", "evaluation", "*", "validation", "detailed_grading.json"))
	must(t, err)
	tasks, err := datasets.LoadClinSQL(filepath.Join(data, "data", "splits", "validation"))
	must(t, err)
	set, err := labels.Validation()
	must(t, err)
	r, err := Build(context.Background(), Options{Tasks: tasks, Gradings: gradings, Mode: rubric.Reference, Bootstrap: Bootstrap{Seed: 1, Resamples: 50}})
	must(t, err)
	must(t, r.applyLabels("datasets/labels/validation.jsonl", set, tasks))
	var md strings.Builder
	mdTable(&md, correctedHeader, "lrrrrrrrrr", r.Labels.correctedRows("validation", rubric.Reference))
	golden(t, correctedGolden, []byte(md.String()))
	if n := len(r.Labels.Rows); n != 16 {
		t.Errorf("%d models with labels, want 16", n)
	}
	tot := r.Labels.Total
	if tot.Accuracy.Labelled != len(set) {
		t.Errorf("%d labelled leaves counted, want %d", tot.Accuracy.Labelled, len(set))
	}
}

// TestReadmeCorrectedLeaderboard checks that the README states the
// corrected leaderboard TestCorrectedLeaderboard computes, verbatim.
func TestReadmeCorrectedLeaderboard(t *testing.T) {
	table, err := os.ReadFile(filepath.Join("testdata", correctedGolden))
	must(t, err)
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	must(t, err)
	if !strings.Contains(string(readme), string(table)) {
		t.Errorf("README.md does not hold the corrected leaderboard of %s:\n%s", correctedGolden, table)
	}
}
