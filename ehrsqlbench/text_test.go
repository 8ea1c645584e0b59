package ehrsqlbench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/reliability"
)

// TestScoreOutputText: the scores' text says first what was scored (a
// subset, answer.json's gold, lenient abstention), then the four scores
// and the outcome counts; WriteFile writes the JSON the text comes from.
func TestScoreOutputText(t *testing.T) {
	out := &ScoreOutput{Split: "valid", Predictions: "p.json", GoldSource: "answers", Lenient: true, Subset: "2 of the 4 questions",
		Report: &reliability.Report{Scores: reliability.Scores{N: 2, RS0: 50, RS10: -450}}}
	out.Correct, out.Wrong = 1, 1
	var b strings.Builder
	out.WriteText(&b)
	for _, want := range []string{"split valid, 2 items, predictions p.json\nSUBSET: 2 of the 4 questions;", "scoring_v2", "lenient abstention",
		"RS(0)             50.00", "RS(10)          -450.00", "RS(N=2)", "correct                       1  +1", "wrong                         1  -c"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	path := filepath.Join(t.TempDir(), "scores.json")
	if err := out.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	var back ScoreOutput
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &back) != nil || back.Subset != out.Subset || back.Report == nil || back.RS10 != -450 {
		t.Errorf("%s: %v", data, err)
	}
}
