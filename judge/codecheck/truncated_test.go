package codecheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/runfolder"
)

// TestTruncatedResultFile: a result file the engine's row or byte cap cut
// holds only the rows kept. A property of every row (no NULL, every value
// in a band) cannot pass on it; before, the file was judged as if it were
// the whole result.
func TestTruncatedResultFile(t *testing.T) {
	key := datasets.Key{Split: "validation", Domain: "D", Difficulty: "easy", ID: "001"}
	for _, tc := range []struct {
		name    string
		summary string // execution_summary.json
		want    bool   // the table is marked truncated
	}{
		{"cut by the cap (clinsql's record)", `{"final_sql":"SELECT 1","execution_success":true,"row_count":2,"clinsql":{"truncated":true}}`, true},
		{"more rows recorded than written", `{"final_sql":"SELECT 1","execution_success":true,"row_count":5000}`, true},
		{"whole result", `{"final_sql":"SELECT 1","execution_success":true,"row_count":2,"clinsql":{"truncated":false}}`, false},
		{"reference shape, whole result", `{"final_sql":"SELECT 1","execution_success":true,"row_count":2}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "validation", "D", "easy_level_queries", "001")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, runfolder.ExecutionSummaryFile), []byte(tc.summary), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, runfolder.ResultFile("001")), []byte("mortality_rate,los\n3.5,2\n4.0,3\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			run, err := runfolder.Load(filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(dir)))))
			if err != nil {
				t.Fatal(err)
			}
			var o *runfolder.Output
			for _, x := range run.Outputs {
				if x.Key == key {
					o = x
				}
			}
			if o == nil {
				t.Fatalf("task %s not loaded", key)
			}
			a := LoadAnswer(o, "q")
			if a.Table == nil {
				t.Fatalf("no table: %+v", a)
			}
			if a.Table.Truncated != tc.want {
				t.Fatalf("truncated = %v, want %v", a.Table.Truncated, tc.want)
			}
			noNull := Check(resultsLeaf(t, format, "", "No NULL/Empty Values"), a)
			band := Check(resultsLeaf(t, values, "Mortality rate", "Acceptable Range (0-10%)"), a)
			if tc.want {
				if noNull.Decided || band.Decided {
					t.Errorf("decided on a cut result: no-NULL %v (%s), band %v (%s)", noNull.Decided, noNull.Explanation, band.Decided, band.Explanation)
				}
			} else if !noNull.Decided || !noNull.Pass {
				t.Errorf("whole result: no-NULL %+v", noNull)
			}
			if tc.want && !strings.Contains(noNull.Explanation+band.Explanation, "rows") {
				t.Errorf("explanations do not say why: %q / %q", noNull.Explanation, band.Explanation)
			}
		})
	}
}
