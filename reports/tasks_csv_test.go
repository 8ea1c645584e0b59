package reports

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTasksCSV: tasks.csv beside the leaderboard has one row per model and
// task with its scores, status and invalid leaves.
func TestTasksCSV(t *testing.T) {
	fs := writeFixtureSet(t)
	r := buildFixtureReport(t, fs, Options{})
	dir := t.TempDir()
	if _, err := r.Write(dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, TasksCSV))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := "model,split,task,difficulty,domain,mode,sql_score,execution_score,status,invalid_leaves"
	if len(rows) == 0 || strings.Join(rows[0], ",") != want {
		t.Fatalf("header %v, want %s", rows[0], want)
	}
	if n := len(rows) - 1; n != 2*len(fs.tasks) {
		t.Errorf("%d rows, want %d (2 models x %d tasks)", n, 2*len(fs.tasks), len(fs.tasks))
	}
	var sawFailed, sawInvalid bool
	for _, row := range rows[1:] {
		if row[0] == "beta-coder" && row[2] == "validation/Diagnostic_Procedures/easy_level_queries/001" {
			sawFailed = row[8] == "SQL failed on every attempt"
		}
		sawInvalid = sawInvalid || row[9] != "0"
	}
	if !sawFailed || !sawInvalid {
		t.Errorf("tasks.csv lacks beta-coder's failed task or any invalid leaf:\n%v", rows)
	}
}
