package main

import (
	"os"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// TestRunFolderQueries: a model's re-executed run is counted from its run
// folder (exec --run writes no batch summary): which tasks ran, the failed
// ones by class, a query stopped at the memory limit, and the engine time
// of each task's final query.
func TestRunFolderQueries(t *testing.T) {
	run := t.TempDir()
	write := func(id, status string, a refinefmt.Attempt) {
		k := datasets.Key{Split: "validation", Domain: "Vital_Signs_Monitoring", Difficulty: "easy", ID: id}
		if err := os.MkdirAll(runfolder.TaskDir(run, k), 0o755); err != nil {
			t.Fatal(err)
		}
		a.Attempt, a.Request = 1, refinefmt.RequestRecorded
		sum := &refinefmt.TaskSummary{Clinsql: &refinefmt.TaskDetail{Status: status, FinalAttempt: 1, Attempts: []refinefmt.Attempt{a}}}
		sum.Query, sum.FinalSQL = "q", "SELECT 1"
		if err := refinefmt.WriteSummary(run, k, sum); err != nil {
			t.Fatal(err)
		}
	}
	write("001", refinefmt.StatusOK, refinefmt.Attempt{Status: refinefmt.AttemptOK, ExecMS: 100})
	write("002", refinefmt.StatusEmpty, refinefmt.Attempt{Status: refinefmt.AttemptEmpty, ExecMS: 300})
	write("003", refinefmt.StatusFailed, refinefmt.Attempt{Status: refinefmt.AttemptError, ErrorClass: executor.ClassSyntax, Error: "Unrecognized name: x", ExecMS: 5})
	write("004", refinefmt.StatusUnsupported, refinefmt.Attempt{Status: refinefmt.AttemptUnsupported, ErrorClass: executor.ClassUnsupported,
		Error: "Resources exceeded during query execution: the query used more than the embedded engine's memory limit (2GB) and was stopped", ExecMS: 7000})

	q := runFolderQueries(run, step{})
	if q.Total != 4 || q.Succeeded != 2 {
		t.Errorf("total %d, succeeded %d; want 4, 2", q.Total, q.Succeeded)
	}
	if q.ByClass[string(executor.ClassSyntax)] != 1 || q.ByClass[string(executor.ClassUnsupported)] != 1 || len(q.ByClass) != 2 {
		t.Errorf("by class %v; want one syntax error and one unsupported", q.ByClass)
	}
	if q.MemoryRefused != 1 || q.OOM != 0 {
		t.Errorf("stopped at the memory limit %d, out of memory %d; want 1, 0", q.MemoryRefused, q.OOM)
	}
	if q.Median != 300 || q.Max != 7000 {
		t.Errorf("median %v, max %v ms; want 300, 7000", q.Median, q.Max)
	}
}
