// Package released loads the ClinSQL validation tasks and the 16 released
// models' validation runs with their recorded gradings (package
// datasets/released) for the tests that measure the judge on them
// (replay, grouping, code-check agreement and scan). Tests that call Load
// are skipped where the data is absent (see package shared).
package released

import (
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/datasets/released"
	"github.com/clinsql/clinsql/internal/shared"
)

// Model is one released model: its validation run and recorded grading.
type Model = released.Model

// Load returns the validation tasks by key and the 16 released models,
// failing tb when the data is not the expected 16 models and 190 tasks.
func Load(t testing.TB) (map[datasets.Key]*datasets.Task, []*Model) {
	t.Helper()
	tasks, models, err := released.Open(shared.Path(t, "clinsql-data"))
	if err != nil {
		t.Fatal(err)
	}
	return tasks, models
}
