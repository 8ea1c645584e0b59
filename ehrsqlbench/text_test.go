package ehrsqlbench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestScoreOptionsCheck: options that cannot score are refused, each
// naming the setting, before anything is read.
func TestScoreOptionsCheck(t *testing.T) {
	ok := ScoreOptions{DataDir: "d", Split: "valid", Predictions: "p.json", Abstention: reliability.Abstention{Marker: "null"},
		Timeout: time.Second, MaxRows: reliability.MaxAnswerRows, Workers: 1}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		change func(*ScoreOptions)
		want   string
	}{
		{func(o *ScoreOptions) { o.DataDir = "" }, "--tasks"},
		{func(o *ScoreOptions) { o.Split = "" }, "--split"},
		{func(o *ScoreOptions) { o.Baseline = "gold" }, "exactly one of --run FILE and --baseline"},
		{func(o *ScoreOptions) { o.Predictions, o.Baseline = "", "oracle" }, "--baseline must be abstain-all or gold"},
		{func(o *ScoreOptions) { o.Abstention.Marker = "" }, "--abstain-marker"},
		{func(o *ScoreOptions) { o.Workers = 0 }, "--concurrency"},
		{func(o *ScoreOptions) { o.Timeout = 0 }, "--timeout"},
		{func(o *ScoreOptions) { o.MaxRows = 1 }, "--max-rows"},
	} {
		o := ok
		tc.change(&o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want %q", err, tc.want)
		}
		if _, err := ScoreFile(context.Background(), o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ScoreFile: %v, want %q", err, tc.want)
		}
	}
}

// TestWriteStopped: each stopped model with its split and reason; the
// others are not named.
func TestWriteStopped(t *testing.T) {
	r := &RunResult{Generated: map[string][]*ModelResult{"valid": {{Model: "a", Stopped: "401: bad key"}, {Model: "b"}}}}
	var b strings.Builder
	r.WriteStopped(&b)
	if b.String() != "a (valid): 401: bad key\n" {
		t.Errorf("%q", b.String())
	}
}
