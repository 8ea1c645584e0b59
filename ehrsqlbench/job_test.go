package ehrsqlbench_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/ehrsqlbench"
	"github.com/clinsql/clinsql/executor/sqlite/sqlitetest"
)

// jobData writes an EHRSQL data folder: the splits valid (three
// questions) and train (two), and the database.
func jobData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeSplit(t, dir, "valid", []string{"v1", "v2", "v3"}, []string{"How many patients?", "Which genders?", "What is the weather?"},
		[]string{"SELECT COUNT(*) FROM patients", "SELECT DISTINCT gender FROM patients", "null"})
	writeSplit(t, dir, "train", []string{"t1", "t2"}, []string{"How many women?", "Is it raining?"},
		[]string{"SELECT COUNT(*) FROM patients WHERE gender = 'f'", "null"})
	db, err := os.ReadFile(sqlitetest.Build(t, `CREATE TABLE patients (row_id INT PRIMARY KEY, gender VARCHAR(5));
		INSERT INTO patients VALUES (0, 'f'), (1, 'm');`))
	if err == nil {
		err = os.MkdirAll(filepath.Join(dir, "mimic_iv"), 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "mimic_iv", "mimic_iv.sqlite"), db, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestJobOpen: a job reads the questions of its split (the first Limit),
// the calibration split only when a strategy has a threshold, never the
// split being scored under another of its names, and the train split for
// a model with shots.
func TestJobOpen(t *testing.T) {
	dir := jobData(t)
	plain, err := ehrsqlbench.ParseModels("m.yaml", []byte("models:\n  - {name: a, kind: openai, model: m, strategies: [model]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	calibrated, err := ehrsqlbench.ParseModels("m.yaml", []byte("models:\n  - {name: a, kind: openai, model: m, shots: 1, "+
		"capabilities: {logprobs: true}, strategies: [model, model+logprob]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name             string
		models           []ehrsqlbench.Model
		split, cal       string
		limit, calLimit  int
		eval, calibrated int
		shots, sameSplit bool
	}{
		{name: "whole split", models: plain, split: "validation", eval: 3},
		{name: "limit", models: plain, split: "valid", limit: 2, eval: 2},
		{name: "calibration", models: calibrated, split: "valid", cal: "train", calLimit: 1, eval: 3, calibrated: 1, shots: true},
		{name: "calibration is the split scored", models: calibrated, split: "valid", cal: "validation", sameSplit: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := ehrsqlbench.DefaultJob()
			j.DataDir, j.Models, j.Split, j.Limit, j.CalibrationLimit = dir, tc.models, tc.split, tc.limit, tc.calLimit
			if tc.cal != "" {
				j.CalibrationSplit = tc.cal
			}
			in, err := j.Open(context.Background())
			var se *ehrsqlbench.SameSplitError
			if tc.sameSplit {
				if !errors.As(err, &se) || se.Split != "validation" {
					t.Fatalf("error %v, want the calibration split refused", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if len(in.EvalIDs) != tc.eval || len(in.CalibrationIDs) != tc.calibrated || (in.Retriever != nil) != tc.shots ||
				in.Schema == "" || len(in.DatabaseSHA256) != 64 {
				t.Errorf("eval %v, calibration %v, retriever %v, schema %d bytes, database %q", in.EvalIDs, in.CalibrationIDs,
					in.Retriever != nil, len(in.Schema), in.DatabaseSHA256)
			}
			want := tc.eval + tc.calibrated // the strategy with a threshold answers both splits
			if es := j.Estimate(in); len(es) == 0 || es[len(es)-1].Questions != want {
				t.Errorf("estimate %+v, want %d questions", es, want)
			}
		})
	}
}

// TestRunConfigJob: a run config's job takes the command's defaults where
// the config is silent.
func TestRunConfigJob(t *testing.T) {
	penalty := 5.0
	c := &ehrsqlbench.RunConfig{Tasks: "data", Split: "test", Out: "o", Limit: 3, Penalty: &penalty}
	j := c.Job(nil)
	d := ehrsqlbench.DefaultJob()
	if j.DataDir != "data" || j.Split != "test" || j.Out != "o" || j.Limit != 3 || j.Penalty != 5 ||
		j.CalibrationSplit != d.CalibrationSplit || j.Concurrency != d.Concurrency || j.Timeout != d.Timeout || j.Seed != d.Seed {
		t.Errorf("job %+v", j)
	}
	c.CalibrationSplit, c.Concurrency, c.Penalty = "train", 2, nil
	if j = c.Job(nil); j.CalibrationSplit != "train" || j.Concurrency != 2 || j.Penalty != d.Penalty {
		t.Errorf("job %+v", j)
	}
}
