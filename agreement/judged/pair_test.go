package judged

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/runfolder"
)

// writeGrading writes a one-task grading of model, judged on answers
// (nil: a published grading, which records none).
func writeGrading(t *testing.T, model string, answers *runfolder.Identity) string {
	t.Helper()
	sum := map[string]any{"experiment_model": model, "split": "validation"}
	if answers != nil {
		sum["run"] = answers
	}
	b, err := json.Marshal(map[string]any{"summary": sum, "detailed_evaluations": []any{map[string]any{
		"sample_path":         "/r/" + model + "/validation/Diagnostic_Procedures/easy_level_queries/001",
		"sql_evaluations":     map[string]any{"joins": map[string]any{"score": 1, "explanation": "ok", "critical": true, "weight": 1}},
		"results_evaluations": map[string]any{"band": map[string]any{"score": 0, "explanation": "out of band", "critical": true, "weight": 1}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "detailed_grading.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPairChecksAnswers: two judge outputs are compared leaf by leaf only
// on the same model's answers. Outputs that record different answers (a
// BigQuery run and its re-execution on a sample database) are refused, and
// two differently named models are paired only when both record the same
// answers (issue 25, finding 6: any two models were paired).
func TestPairChecksAnswers(t *testing.T) {
	bq := &runfolder.Identity{Model: "m", Answers: strings.Repeat("a", 64), Tasks: 1}
	demo := &runfolder.Identity{Model: "m", Answers: strings.Repeat("b", 64), Tasks: 1}
	renamed := &runfolder.Identity{Model: "m on the demo", Answers: strings.Repeat("a", 64), Tasks: 1}
	for _, c := range []struct {
		name         string
		a, b         string
		aRun, bRun   *runfolder.Identity
		wantErr      string
		wantPairsLen int
	}{
		{"same answers", "m", "m", bq, bq, "", 1},
		{"one side records none", "m", "m", bq, nil, "", 1},
		{"other answers", "m", "m", bq, demo, "judged other answers", 0},
		{"two models, no record", "m", "other", nil, nil, "no model judged by both", 0},
		{"two models, other answers", "m", "other", bq, demo, "no model judged by both", 0},
		{"two names, same answers", "m", "m on the demo", bq, renamed, "", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := Load(writeGrading(t, c.a, c.aRun))
			if err != nil {
				t.Fatal(err)
			}
			b, err := Load(writeGrading(t, c.b, c.bRun))
			if err != nil {
				t.Fatal(err)
			}
			items, pairs, err := Pair(a, b, Context{})
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Pair: %v, want an error saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(pairs) != c.wantPairsLen || len(items) != 2 {
				t.Errorf("pairs %v, %d items; want %d pair(s) of 2 leaves", pairs, len(items), c.wantPairsLen)
			}
		})
	}
}
