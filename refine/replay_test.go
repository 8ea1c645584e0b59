package refine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

// writeRecorded writes a recorded run: per task key, the final SQL and
// whether the recording engine ran it.
func writeRecorded(t *testing.T, dir string, sqls map[string]string) {
	t.Helper()
	for key, sql := range sqls {
		k, err := datasets.ParseKey(key)
		if err != nil {
			t.Fatal(err)
		}
		d := runfolder.TaskDir(dir, k)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(runfolder.ExecutionSummary{Query: "q", FinalSQL: sql, ExecutionSuccess: sql != "", RowCount: 1,
			Model: "recorded-model", RefinementAttempts: []runfolder.Attempt{{Attempt: 1, Success: sql != ""}}})
		if err := os.WriteFile(filepath.Join(d, runfolder.ExecutionSummaryFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReplay(t *testing.T) {
	tasks := fixtureTasks(t)
	ex := miniEngine(t)
	rec := t.TempDir()
	writeRecorded(t, rec, map[string]string{
		"validation/Diagnostic_Procedures/easy_level_queries/001":         okSQL,
		"validation/Laboratory_Results_Analysis/medium_level_queries/001": badSQL,
		"validation/Vital_Signs_Monitoring/hard_level_queries/002":        "",
	})
	out := filepath.Join(t.TempDir(), "replayed")
	mr, err := Replay(context.Background(), ReplayOptions{Recorded: rec, Out: out, Tasks: tasks, Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	if mr.Model != "recorded-model" || mr.Done != 3 || len(mr.Pending) != 1 || !strings.HasPrefix(mr.Pending[0], "test/Medication_Management") {
		t.Fatalf("result = %+v", mr)
	}
	outs, err := runfolder.LoadOutputs(out)
	if err != nil || len(outs) != 3 {
		t.Fatalf("LoadRun: %d outputs, %v", len(outs), err)
	}
	byDomain := map[string]*runfolder.Output{}
	for _, o := range outs {
		byDomain[o.Domain] = o
	}
	if o := byDomain["Diagnostic_Procedures"]; !o.Summary.ExecutionSuccess || o.ResultCSV == "" || o.Summary.FinalSQL != okSQL {
		t.Errorf("ok task: %+v", o.Summary)
	}
	if o := byDomain["Laboratory_Results_Analysis"]; o.Summary.ExecutionSuccess || o.ResultCSV != "" ||
		o.Summary.FinalError == nil || !strings.HasPrefix(*o.Summary.FinalError, "syntax_error: ") {
		t.Errorf("failing task: %+v", o.Summary)
	}
	if o := byDomain["Vital_Signs_Monitoring"]; o.Summary.ExecutionSuccess || o.Summary.FinalError == nil ||
		!strings.HasPrefix(*o.Summary.FinalError, FailedToGenerate) {
		t.Errorf("no-SQL task: %+v", o.Summary)
	}
	// The recorded outcome is kept beside the new one.
	sum, ok, err := refinefmt.ReadSummary(out, byDomain["Laboratory_Results_Analysis"].Key)
	if err != nil || !ok || sum.Clinsql.Recorded == nil || !sum.Clinsql.Recorded.ExecutionSuccess || sum.Clinsql.Attempts[0].Request != refinefmt.RequestRecorded {
		t.Errorf("recorded outcome not kept: %+v, %v", sum.Clinsql, err)
	}
	if _, err := os.Stat(filepath.Join(out, "benchmark_summary.json")); err != nil {
		t.Error(err)
	}

	// A second replay finds everything done.
	again, err := Replay(context.Background(), ReplayOptions{Recorded: rec, Out: out, Tasks: tasks, Executor: ex})
	if err != nil || again.Done != 0 || again.Resumed != 3 {
		t.Fatalf("second replay: %+v, %v", again, err)
	}
}
