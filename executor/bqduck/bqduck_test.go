package bqduck

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bqsql"
	"github.com/clinsql/clinsql/executor/mimic"
)

func TestShapeForParser(t *testing.T) {
	cases := []struct{ in, want string }{
		{"SELECT `a`.b FROM `physionet-data.mimiciv_3_1_hosp.patients` p", `SELECT "a".b FROM "physionet-data.mimiciv_3_1_hosp.patients" p`},
		{"SELECT r'\\d', \"x\", '''y''', b'z' # c\nFROM t", "SELECT '', '', '', '' -- c\nFROM t"},
		{"DROP TABLE `p.d.t`; -- `x`", `DROP TABLE "p.d.t"; -- ` + "`x`"},
	}
	for _, c := range cases {
		if got := shapeForParser(c.in); got != c.want {
			t.Errorf("shape(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func buildMini(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "mini.duckdb")
	if _, err := mimic.Build(context.Background(), mimic.BuildOptions{MimicDir: "../mimic/testdata/mini", Out: db}); err != nil {
		t.Fatal(err)
	}
	return db
}

// Open assembles the bridge: BigQuery spelling, the Go functions, BigQuery's
// error words, and the division by zero the database's facts decide.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	db := buildMini(t)
	for _, c := range []struct {
		mode     ZeroDivision
		sem      string
		divWants string // "" when a division by zero fails
	}{
		{"", "division_by_zero=null", "NULL"},
		{ZeroDivisionAuto, "division_by_zero=null", "NULL"},
		{ZeroDivisionNull, "division_by_zero=null", "NULL"},
		{ZeroDivisionError, "division_by_zero=error", ""},
	} {
		t.Run(string(c.mode), func(t *testing.T) {
			eng, err := Open(ctx, Options{DB: db, ZeroDivision: c.mode})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			if f := eng.DatabaseFacts(); f.Patients != 3 || !f.Sample || f.Source != "mimic-iv" {
				t.Errorf("facts %+v, want 3 patients of a sample built from mimic-iv", f)
			}
			if got := eng.Semantics(); got != c.sem {
				t.Errorf("semantics %q, want %q", got, c.sem)
			}
			// The function reference's example (FarmHash Fingerprint64),
			// on a MIMIC table named as in BigQuery.
			res, err := eng.Query(ctx, "SELECT FARM_FINGERPRINT('1footrue') AS f, COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients`")
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(res.Rows); got != "[[-1541654101129638711 3]]" {
				t.Errorf("rows %s", got)
			}
			res, err = eng.Query(ctx, "SELECT 1 / (anchor_age - anchor_age) AS r FROM `physionet-data.mimiciv_3_1_hosp.patients` LIMIT 1")
			switch {
			case c.divWants == "" && executor.ClassOf(err) != executor.ClassRuntime:
				t.Errorf("division by zero: %v, want a runtime error", err)
			case c.divWants == "" && !strings.Contains(err.Error(), "division by zero: 1 / 0"):
				t.Errorf("division by zero: %v, want BigQuery's words", err)
			case c.divWants != "" && (err != nil || res.Rows[0][0] != nil || len(res.Warnings) == 0):
				t.Errorf("division by zero: %v, %v: want NULL with a warning", err, res)
			}
		})
	}
}

// The catalog is the schema's: a table BigQuery would not find is refused
// before DuckDB sees the query, and NoCatalog leaves table names unchecked.
func TestOpenCatalog(t *testing.T) {
	ctx := context.Background()
	db := buildMini(t)
	query := "SELECT COUNT(*) FROM `physionet-data.mimiciv_3_1_hosp.no_such_table`"
	eng, err := Open(ctx, Options{DB: db})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	_, err = eng.Query(ctx, query)
	if !errors.Is(err, bqsql.ErrInvalid) || executor.ClassOf(err) != executor.ClassSyntax {
		t.Errorf("unknown table: %v (class %s), want the translator's refusal", err, executor.ClassOf(err))
	}
	if _, err := Open(ctx, Options{DB: db, ZeroDivision: "never"}); err == nil || !strings.Contains(err.Error(), "--zero-division must be auto, error or null") {
		t.Errorf("bad zero-division mode: %v", err)
	}
}

// A database that holds no patients table cannot say whether it is a
// sample: auto mode refuses it rather than guess.
func TestOpenAutoNeedsFacts(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "other.duckdb")
	db, err := sql.Open("duckdb", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := Open(ctx, Options{DB: path}); err == nil || !strings.Contains(err.Error(), "give --zero-division error or null") {
		t.Errorf("auto on a database without patients: %v", err)
	}
	eng, err := Open(ctx, Options{DB: path, NoCatalog: true, ZeroDivision: ZeroDivisionError})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if f := eng.DatabaseFacts(); f.Patients != 0 || f.Sample {
		t.Errorf("facts %+v, want none", f)
	}
}

// The flags give the options, and a mode the engine has not is a usage
// error naming the flag.
func TestFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want Options
		err  string
	}{
		{nil, Options{Memory: "2GB", Threads: 1, ZeroDivision: ZeroDivisionAuto}, ""},
		{[]string{"--db", "x.duckdb", "--memory", "4GB", "--threads", "2", "--zero-division", "null"},
			Options{DB: "x.duckdb", Memory: "4GB", Threads: 2, ZeroDivision: ZeroDivisionNull}, ""},
		{[]string{"--zero-division", "never"}, Options{}, `--zero-division must be auto, error or null, not "never"`},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f := AddFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		got, err := f.Options(executor.Limits{}, 0)
		var ue *UsageError
		switch {
		case c.err != "" && (!errors.As(err, &ue) || err.Error() != c.err):
			t.Errorf("%v: error %v, want usage error %q", c.args, err, c.err)
		case c.err == "" && (err != nil || fmt.Sprint(got) != fmt.Sprint(c.want)):
			t.Errorf("%v: %+v, %v; want %+v", c.args, got, err, c.want)
		}
	}
}
