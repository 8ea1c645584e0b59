package mimic

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/internal/shared"
)

// demoRows are the row counts of the MIMIC-IV demo v2.2 files
// (../shared/reference/mimic-iv.md).
var demoRows = map[string]int64{
	"mimiciv_3_1_hosp.admissions": 275, "mimiciv_3_1_hosp.d_hcpcs": 89200, "mimiciv_3_1_hosp.d_icd_diagnoses": 109775,
	"mimiciv_3_1_hosp.d_icd_procedures": 85257, "mimiciv_3_1_hosp.d_labitems": 1622, "mimiciv_3_1_hosp.diagnoses_icd": 4506,
	"mimiciv_3_1_hosp.drgcodes": 454, "mimiciv_3_1_hosp.emar": 35835, "mimiciv_3_1_hosp.emar_detail": 72018,
	"mimiciv_3_1_hosp.hcpcsevents": 61, "mimiciv_3_1_hosp.labevents": 107727, "mimiciv_3_1_hosp.microbiologyevents": 2899,
	"mimiciv_3_1_hosp.omr": 2964, "mimiciv_3_1_hosp.patients": 100, "mimiciv_3_1_hosp.pharmacy": 15306,
	"mimiciv_3_1_hosp.poe": 45154, "mimiciv_3_1_hosp.poe_detail": 3795, "mimiciv_3_1_hosp.prescriptions": 18087,
	"mimiciv_3_1_hosp.procedures_icd": 722, "mimiciv_3_1_hosp.provider": 40508, "mimiciv_3_1_hosp.services": 319,
	"mimiciv_3_1_hosp.transfers": 1190,
	"mimiciv_3_1_icu.caregiver":  15468, "mimiciv_3_1_icu.d_items": 4014, "mimiciv_3_1_icu.datetimeevents": 15280,
	"mimiciv_3_1_icu.icustays": 140, "mimiciv_3_1_icu.ingredientevents": 25728, "mimiciv_3_1_icu.inputevents": 20404,
	"mimiciv_3_1_icu.outputevents": 9362, "mimiciv_3_1_icu.procedureevents": 1468,
	"mimiciv_3_1_icu.chartevents": 0, "mimiciv_3_1_derived.charlson": 275,
}

func TestBuildDemo(t *testing.T) {
	demo := shared.Path(t, "mimic-iv-demo")
	out := filepath.Join(t.TempDir(), "demo.duckdb")
	rep, err := Build(context.Background(), BuildOptions{MimicDir: demo, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tables) != len(V31.Tables) {
		t.Errorf("report has %d tables, schema %d", len(rep.Tables), len(V31.Tables))
	}
	for _, tr := range rep.Tables {
		want, ok := demoRows[tr.Table]
		if !ok {
			t.Errorf("unexpected table %s", tr.Table)
			continue
		}
		if tr.Rows != want {
			t.Errorf("%s: %d rows, want %d", tr.Table, tr.Rows, want)
		}
	}
	if m := rep.Missing(); len(m) != 1 || m[0] != "mimiciv_3_1_icu.chartevents" {
		t.Errorf("missing %v, want only icu.chartevents", m)
	}
	if f := rep.Facts; f.Source != SourceDemo || f.Patients != 100 || !IsSample(f.Patients) {
		t.Errorf("demo facts %+v, want the demo's source and 100 patients, a sample", f)
	}
	t.Logf("demo build: %v", rep.Duration)
	if _, err := os.Stat(out + ".building"); err == nil {
		t.Error("temporary file left behind")
	}
	db, err := sql.Open("duckdb", out+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT count(*) FROM mimiciv_3_1_derived.charlson WHERE charlson_comorbidity_index IS NULL`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d charlson rows without an index", n)
	}
}

// BenchmarkBuildDemo measures a full build of the MIMIC-IV demo.
func BenchmarkBuildDemo(b *testing.B) {
	demo := shared.Path(b, "mimic-iv-demo")
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		rep, err := Build(context.Background(), BuildOptions{MimicDir: demo, Out: filepath.Join(dir, "demo.duckdb"), Force: true})
		if err != nil {
			b.Fatal(err)
		}
		var rows int64
		for _, t := range rep.Tables {
			rows += t.Rows
		}
		b.ReportMetric(float64(rows), "rows")
		b.ReportMetric(rep.Duration.Seconds(), "s/build")
	}
}
