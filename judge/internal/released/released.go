// Package released loads the ClinSQL validation tasks and the 16 released
// models' validation runs with their recorded gradings from the licensed
// data beside the project (see package shared), for the tests that
// measure the judge on them (replay, grouping, code-check agreement and
// scan). Tests that call Load are skipped where the data is absent.
package released

import (
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/runfolder"
	"github.com/clinsql/clinsql/scoring"
)

// Model is one released model: its validation run and recorded grading.
type Model struct {
	Name    string
	Dir     string
	Outputs []*runfolder.Output
	Grading *scoring.Grading
	// ByKey is the grading's evaluation of each task.
	ByKey map[datasets.Key]scoring.Evaluation
}

// Load returns the validation tasks by key and the 16 released models,
// failing tb when the data is not the expected 16 models and 190 tasks.
func Load(t testing.TB) (map[datasets.Key]*datasets.Task, []*Model) {
	t.Helper()
	data := shared.Path(t, "clinsql-data")
	tasks, err := datasets.LoadClinSQL(filepath.Join(data, "data", "splits", "validation"))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[datasets.Key]*datasets.Task{}
	for _, tk := range tasks {
		byKey[tk.Key] = tk
	}
	dirs, _ := filepath.Glob(filepath.Join(data, "outputs", "inference", "*"))
	var models []*Model
	for _, dir := range dirs {
		m := &Model{Name: filepath.Base(dir), Dir: dir, ByKey: map[datasets.Key]scoring.Evaluation{}}
		if m.Outputs, err = runfolder.LoadOutputs(dir); err != nil {
			t.Fatal(err)
		}
		if m.Grading, err = scoring.ReadGrading(filepath.Join(data, "outputs", "evaluation", m.Name, "validation", "detailed_grading.json")); err != nil {
			t.Fatal(err)
		}
		for _, e := range m.Grading.Evaluations {
			k, err := datasets.ParseKey(e.SamplePath)
			if err != nil {
				t.Fatal(err)
			}
			m.ByKey[k] = e
		}
		models = append(models, m)
	}
	if len(models) != 16 || len(tasks) != 190 {
		t.Fatalf("%d models, %d tasks; want 16 and 190", len(models), len(tasks))
	}
	return byKey, models
}
