package runfolder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/shared"
)

func TestLoadRun(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, name, content string) {
		p := filepath.Join(dir, rel)
		must(t, os.MkdirAll(p, 0o755))
		must(t, os.WriteFile(filepath.Join(p, name), []byte(content), 0o644))
	}
	write("validation/Diagnostic_Procedures/easy_level_queries/001", ExecutionSummaryFile,
		`{"query":"q","final_sql":"SELECT 1","execution_success":true,"row_count":1,"final_error":null,"model":"m",
		  "refinement_attempts":[{"attempt":1,"success":false,"row_count":0,"error":"boom"},{"attempt":2,"success":true,"row_count":1,"error":null}]}`)
	write("validation/Diagnostic_Procedures/easy_level_queries/001", "result_001.csv", "x\n1\n")
	write("validation/Diagnostic_Procedures/hard_level_queries/004", ExecutionSummaryFile,
		`{"query":"q","final_sql":"","execution_success":false,"row_count":0,"final_error":"Failed to generate SQL","model":"m","refinement_attempts":[]}`)
	write("validation/Diagnostic_Procedures/medium_level_queries/009", ExecutionSummaryFile, `{"query":"q","row_count":"seven"}`)

	r, err := Load(dir)
	outs := r.Outputs
	if err == nil || !strings.Contains(err.Error(), filepath.Join("medium_level_queries", "009", ExecutionSummaryFile)+`: field "row_count"`) {
		t.Fatalf("err = %v", err)
	}
	if len(outs) != 2 {
		t.Fatalf("%d outputs", len(outs))
	}
	o := outs[0]
	if o.Key.String() != "validation/Diagnostic_Procedures/easy_level_queries/001" || o.ResultCSV == "" ||
		len(o.Summary.RefinementAttempts) != 2 || *o.Summary.RefinementAttempts[0].Error != "boom" {
		t.Errorf("output = %+v", o)
	}
	if outs[1].ResultCSV != "" || *outs[1].Summary.FinalError != "Failed to generate SQL" {
		t.Errorf("output = %+v", outs[1])
	}
}

func TestLoadReleasedRuns(t *testing.T) {
	inf := shared.Path(t, "clinsql-data", "outputs", "inference")
	models, _ := os.ReadDir(inf)
	total := 0
	for _, m := range models {
		r, err := Load(filepath.Join(inf, m.Name()))
		if err != nil {
			t.Fatalf("%s: %v", m.Name(), err)
		}
		outs := r.Outputs
		if len(outs) != 190 {
			t.Errorf("%s: %d outputs", m.Name(), len(outs))
		}
		for _, o := range outs {
			if o.ResultCSV == "" && !(m.Name() == "gpt-4.1" && o.Key.String() == "validation/Vital_Signs_Monitoring/easy_level_queries/005") {
				t.Errorf("%s %s: no result CSV", m.Name(), o.Key)
			}
		}
		total += len(outs)
	}
	if total != 3040 {
		t.Errorf("%d outputs, want 3040", total)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
