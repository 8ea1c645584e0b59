package judge

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/judge/internal/released"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// TestReplayReferenceDenominators is issue 12's observation 7: replaying a
// released model's recorded decisions in reference mode without code
// checks gives the published averages, and the three summary files equal
// the published ones byte for byte, for every released model. The 12
// early-graded models' gradings lack validation/Vital_Signs_Monitoring/
// easy_level_queries/012 (the published scorer dropped it: its copy of the
// rubric had a mangled "id " key), so reference mode leaves it out of the
// denominator as rescore does; strict mode keeps it, scored.
func TestReplayReferenceDenominators(t *testing.T) {
	tasks, models := released.Load(t)
	models = replayedModels(t, models)
	dropped := 0
	for _, m := range models {
		o := runReplay(t, tasks, m, Options{Mode: rubric.Reference, Skipping: true})
		sc := Score(o, m.Grading.Model())
		r := sc.Splits["validation"]
		if r == nil {
			t.Fatalf("%s: no validation split scored", m.Name)
		}
		f, err := r.Encode()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(m.Grading.File)
		for name, got := range map[string][]byte{scoring.ScoringFile: f.Scoring, scoring.DifficultyFile: f.Difficulty, scoring.ScenarioFile: f.Scenario} {
			want, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			// Four published files end in a newline the scorer did not
			// write (see scoring.TestPublishedScores).
			if !bytes.Equal(got, bytes.TrimRight(want, "\n")) {
				t.Errorf("%s: reference-mode %s differs from the published one", m.Name, name)
			}
		}
		pub := m.Grading.Summary
		s := sc.Summary.Splits["validation"]
		if s.Tasks != pub.TotalSamples || s.AverageSQLScore != pub.AverageSQLScore || s.AverageResultsScore != pub.AverageResultsScore {
			t.Errorf("%s: reference mode gives %d tasks, SQL %.6f, execution %.6f; published %d, %.6f, %.6f", m.Name,
				s.Tasks, s.AverageSQLScore, s.AverageResultsScore, pub.TotalSamples, pub.AverageSQLScore, pub.AverageResultsScore)
		}
		if want := len(tasks) - len(m.ByKey); len(sc.Summary.Excluded) != want {
			t.Errorf("%s: %d tasks left out of reference mode, want %d (the tasks the grading lacks)", m.Name, len(sc.Summary.Excluded), want)
		}
		dropped += len(sc.Summary.Excluded)

		// Strict mode keeps every task of the run in the denominator.
		st := Score(runReplay(t, tasks, m, Options{Mode: rubric.Strict, Skipping: true}), m.Grading.Model())
		if n := st.Summary.Splits["validation"].Tasks; n != len(tasks) || len(st.Summary.Excluded) != 0 {
			t.Errorf("%s: strict mode scores %d tasks and leaves out %d, want %d and 0", m.Name, n, len(st.Summary.Excluded), len(tasks))
		}
	}
	t.Logf("%d models: published averages and summary files reproduced in reference mode; %d task gradings absent, left out as published", len(models), dropped)
}
