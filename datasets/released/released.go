// Package released opens the ClinSQL release beside the project: the 190
// validation tasks and the 16 models' validation runs with their
// recorded gradings (outputs/inference/<model>, outputs/evaluation/<model>/
// validation/detailed_grading.json). The judge's measurements (through
// judge/internal/released, which skips tests where the data is absent)
// and the labelling tool (cmd/labelcards) read it through Open.
package released

import (
	"fmt"
	"path/filepath"

	"github.com/clinsql/clinsql/datasets"
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

// Open loads the validation tasks by key and the 16 released models from
// data, the clinsql-data folder. Models come sorted by name. It is an
// error when the data is not the expected 16 models and 190 tasks.
func Open(data string) (map[datasets.Key]*datasets.Task, []*Model, error) {
	tasks, err := datasets.LoadClinSQL(filepath.Join(data, "data", "splits", "validation"))
	if err != nil {
		return nil, nil, err
	}
	byKey := map[datasets.Key]*datasets.Task{}
	for _, tk := range tasks {
		byKey[tk.Key] = tk
	}
	dirs, err := filepath.Glob(filepath.Join(data, "outputs", "inference", "*"))
	if err != nil {
		return nil, nil, err
	}
	var models []*Model
	for _, dir := range dirs {
		m := &Model{Name: filepath.Base(dir), Dir: dir, ByKey: map[datasets.Key]scoring.Evaluation{}}
		if m.Outputs, err = runfolder.LoadOutputs(dir); err != nil {
			return nil, nil, err
		}
		if m.Grading, err = scoring.ReadGrading(filepath.Join(data, "outputs", "evaluation", m.Name, "validation", "detailed_grading.json")); err != nil {
			return nil, nil, err
		}
		for _, e := range m.Grading.Evaluations {
			k, err := datasets.ParseKey(e.SamplePath)
			if err != nil {
				return nil, nil, err
			}
			m.ByKey[k] = e
		}
		models = append(models, m)
	}
	if len(models) != 16 || len(tasks) != 190 {
		return nil, nil, fmt.Errorf("%s: %d models, %d tasks; want 16 and 190", data, len(models), len(tasks))
	}
	return byKey, models, nil
}
