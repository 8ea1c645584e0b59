package synth

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/executor/mimic"
)

func write(t *testing.T, patients int, seed uint64, workers int) (string, *Report) {
	t.Helper()
	dir := t.TempDir()
	rep, err := Write(context.Background(), Options{Patients: patients, Seed: seed, Out: dir, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return dir, rep
}

func digestDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range []string{"hosp", "icu"} {
		files, _ := filepath.Glob(filepath.Join(dir, m, "*"))
		for _, f := range files {
			h := sha256.New()
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(h, fh)
			fh.Close()
			out[m+"/"+filepath.Base(f)] = fmt.Sprintf("%x", h.Sum(nil))
		}
	}
	return out
}

// The files build with the loader (every header and field fits the schema),
// and every table of the schema has its file.
func TestSynthBuilds(t *testing.T) {
	dir, rep := write(t, 150, 1, 2)
	out := filepath.Join(t.TempDir(), "s.duckdb")
	brep, err := mimic.Build(context.Background(), mimic.BuildOptions{MimicDir: dir, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if m := brep.Missing(); len(m) != 0 {
		t.Errorf("tables without a file: %v", m)
	}
	for _, tr := range rep.Tables {
		t.Logf("%-32s %9d rows", tr.File, tr.Rows)
	}
	_ = sql.ErrNoRows
}

// Rows per patient follow MIMIC-IV v3.1's (the tables' perPatient).
func TestSynthShape(t *testing.T) {
	const n = 1500
	_, rep := write(t, n, 7, 2)
	specs, err := tablesFor(mimic.V31)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		var got int64
		for _, tr := range rep.Tables {
			if tr.File == s.module+"/"+s.name+".csv.gz" {
				got = tr.Rows
			}
		}
		want := s.perPatient * n
		if s.dict != nil {
			want = float64(s.fixed)
		}
		ratio := float64(got) / want
		t.Logf("%-20s %9d rows, want %9.0f (%.2f)", s.name, got, want, ratio)
		if ratio < 0.85 || ratio > 1.15 {
			t.Errorf("%s: %d rows, want about %.0f", s.name, got, want)
		}
	}
}

// The same seed and patients give the same bytes whatever the number of
// workers; another seed gives other data.
func TestSynthReproducible(t *testing.T) {
	a, _ := write(t, 60, 3, 1)
	b, _ := write(t, 60, 3, 3)
	c, _ := write(t, 60, 4, 2)
	da, db, dc := digestDir(t, a), digestDir(t, b), digestDir(t, c)
	if len(da) != 31 {
		t.Errorf("%d files, want 31", len(da))
	}
	for f, sum := range da {
		if db[f] != sum {
			t.Errorf("%s differs between 1 and 3 workers", f)
		}
	}
	if da["icu/chartevents.csv.gz"] == dc["icu/chartevents.csv.gz"] || da["hosp/patients.csv.gz"] == dc["hosp/patients.csv.gz"] {
		t.Error("another seed gave the same data")
	}
}

func TestSynthOptions(t *testing.T) {
	for _, o := range []Options{{Patients: 0, Out: t.TempDir()}, {Patients: 5}} {
		if _, err := Write(context.Background(), o); err == nil {
			t.Errorf("Write(%+v) succeeded", o)
		}
	}
}

// TestParsePatients: a positive whole number as written, or "full".
func TestParsePatients(t *testing.T) {
	for s, want := range map[string]int{"1": 1, "10000": 10000, "full": FullPatients, "0": 0, "-3": 0, "+5": 0, "05": 0, "1e3": 0, "many": 0, "": 0} {
		n, err := ParsePatients(s)
		if n != want || (err == nil) != (want > 0) {
			t.Errorf("%q: %d, %v; want %d", s, n, err, want)
		}
	}
}
