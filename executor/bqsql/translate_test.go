package bqsql

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// testCatalog is a slice of the MIMIC-IV v3.1 schema, enough for the
// catalog-driven checks.
var testCatalog = Catalog{
	"mimiciv_3_1_hosp": {
		"patients":      {"subject_id": "INT64", "gender": "STRING", "anchor_age": "INT64", "anchor_year": "INT64", "dod": "DATE"},
		"admissions":    {"subject_id": "INT64", "hadm_id": "INT64", "admittime": "DATETIME", "dischtime": "DATETIME", "hospital_expire_flag": "INT64", "admission_type": "STRING"},
		"diagnoses_icd": {"subject_id": "INT64", "hadm_id": "INT64", "seq_num": "INT64", "icd_code": "STRING", "icd_version": "INT64"},
		"prescriptions": {"hadm_id": "INT64", "drug": "STRING", "dose_val_rx": "STRING"},
	},
	"mimiciv_3_1_icu": {
		"icustays":    {"subject_id": "INT64", "hadm_id": "INT64", "stay_id": "INT64", "intime": "DATETIME", "los": "FLOAT64"},
		"chartevents": {"stay_id": "INT64", "itemid": "INT64", "value": "STRING", "valuenum": "FLOAT64", "charttime": "DATETIME"},
	},
	"mimiciv_3_1_derived": {
		"charlson": {"hadm_id": "INT64", "charlson_comorbidity_index": "INT64"},
	},
}

func TestTablePaths(t *testing.T) {
	const want = `SELECT p.subject_id FROM "mimiciv_3_1_hosp"."patients" p`
	for _, spelling := range []string{
		"`physionet-data.mimiciv_3_1_hosp.patients`",
		"`physionet-data`.mimiciv_3_1_hosp.patients",
		"`physionet-data.mimiciv_3_1_hosp`.patients",
		"`physionet-data`.`mimiciv_3_1_hosp`.`patients`",
		"physionet-data.mimiciv_3_1_hosp.patients",
		"`physionet-data.mimiciv_hosp.patients`",
		"physionet-data.mimiciv_hosp.patients",
	} {
		got, err := (&Translator{Catalog: testCatalog}).Translate("SELECT p.subject_id FROM " + spelling + " p")
		if err != nil || got != want {
			t.Errorf("%s:\n got %q, %v\nwant %q", spelling, got, err, want)
		}
	}
	for in, want := range map[string]string{
		// One backticked identifier: the range variable is the whole name
		// (TestBacktickedPathAlias).
		"SELECT * FROM `physionet-data.mimiciv_icu.icustays`":              `SELECT * FROM "mimiciv_3_1_icu"."icustays" AS "physionet-data.mimiciv_icu.icustays"`,
		"SELECT * FROM `physionet-data`.mimiciv_icu.icustays":              `SELECT * FROM "mimiciv_3_1_icu"."icustays"`,
		"SELECT * FROM `physionet-data.mimiciv_derived.charlson` c":        `SELECT * FROM "mimiciv_3_1_derived"."charlson" c`,
		"SELECT * FROM `physionet-data.mimiciv_3_1_derived.charlson` AS c": `SELECT * FROM "mimiciv_3_1_derived"."charlson" AS c`,
	} {
		got, err := (&Translator{Catalog: testCatalog}).Translate(in)
		if err != nil || got != want {
			t.Errorf("%s:\n got %q, %v\nwant %q", in, got, err, want)
		}
	}
}

func TestTranslateRejects(t *testing.T) {
	cases := []struct {
		name, sql string
		want      error
		msg       string
	}{
		{"dataset without project", "SELECT * FROM mimiciv_3_1_hosp.patients", ErrInvalid, "Not found: Dataset mimiciv_3_1_hosp"},
		{"other project", "SELECT * FROM `bigquery-public-data.x.y`", ErrInvalid, "Not found: Project"},
		{"unknown dataset", "SELECT * FROM `physionet-data.mimimiciv_3_1_hosp.patients`", ErrInvalid, "Access Denied"},
		{"dataset name case", "SELECT * FROM `physionet-data.MIMICIV_3_1_HOSP.patients`", ErrInvalid, "Access Denied"},
		{"dataset not embedded", "SELECT * FROM `physionet-data.mimiciv_ed.edstays`", ErrUnsupported, "not in the embedded database"},
		{"not a MIMIC dataset", "SELECT * FROM `physionet-data.somewhere.patients`", ErrInvalid, "Access Denied"},
		{"table name case", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.PATIENTS`", ErrInvalid, "Not found: Table"},
		{"missing table", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.nonesuch`", ErrInvalid, "Not found: Table"},
		{"derived table not built", "SELECT * FROM `physionet-data.mimiciv_3_1_derived.sofa`", ErrUnsupported, "not in the embedded database"},
		{"INT64 = STRING literal", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.diagnoses_icd` d WHERE d.icd_version = '10'", ErrInvalid, "No matching signature for operator = for argument types: INT64, STRING"},
		{"STRING = INT64 literal", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.diagnoses_icd` WHERE icd_code = 250", ErrInvalid, "STRING, INT64"},
		{"IN list of strings", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.diagnoses_icd` d WHERE d.seq_num IN ('1', '2')", ErrInvalid, "operator IN"},
		{"BETWEEN on a STRING column", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.prescriptions` pr WHERE pr.dose_val_rx BETWEEN 40 AND 80", ErrInvalid, "operator BETWEEN"},
		{"LIKE on an INT64 column", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.diagnoses_icd` d WHERE d.icd_version LIKE '9%'", ErrInvalid, "operator LIKE"},
		{"CAST AS STRING = INT64 column", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.admissions` a JOIN `physionet-data.mimiciv_3_1_hosp.diagnoses_icd` d ON CAST(a.hadm_id AS STRING) = d.hadm_id", ErrInvalid, "STRING, INT64"},
		{"STRING column compared with a number", "SELECT * FROM `physionet-data.mimiciv_icu.chartevents` ce WHERE ce.value > 100", ErrInvalid, "STRING, INT64"},
		{"INT64 column as a condition", "SELECT COUNTIF(hospital_expire_flag) FROM `physionet-data.mimiciv_3_1_hosp.admissions` WHERE hospital_expire_flag AND TRUE", ErrInvalid, "must be BOOL"},
		{"CASE WHEN on an INT64 column", "SELECT CASE WHEN a.hospital_expire_flag THEN 1 END FROM `physionet-data.mimiciv_3_1_hosp.admissions` a", ErrInvalid, "must be BOOL"},
		// SELECT p75 FROM p75 returns the row of p75, a STRUCT, which has
		// no order (BigQuery: INT64, STRUCT<p75 INT64>).
		{"scalar subquery of a row", "WITH p75 AS (SELECT 3 AS p75) SELECT a.hadm_id FROM `physionet-data.mimiciv_3_1_hosp.admissions` a WHERE a.hadm_id > (SELECT p75 FROM p75);",
			ErrInvalid, "No matching signature for operator > for argument types: INT64, STRUCT at [1:106]"},
		{"CTE column holding a row", "WITH t AS (SELECT 3 AS t), v AS (SELECT t FROM t) SELECT a.hadm_id FROM `physionet-data.mimiciv_3_1_hosp.admissions` a CROSS JOIN v WHERE a.hadm_id >= v.t",
			ErrInvalid, "operator >= for argument types: INT64, STRUCT"},
		// A bare name that only a CTE defines has that CTE's type.
		{"CASE WHEN on a CTE's INT64 column", "WITH c AS (SELECT a.hospital_expire_flag AS died FROM `physionet-data.mimiciv_3_1_hosp.admissions` a) SELECT SUM(CASE WHEN died THEN 1 ELSE 0 END) AS n FROM c",
			ErrInvalid, "must be BOOL"},
		// A reserved keyword cannot qualify a column (BigQuery's parser reads
		// IF. as a call missing its bracket).
		{"reserved keyword as a qualifier", "SELECT if.hadm_id FROM `physionet-data.mimiciv_3_1_hosp.admissions` if", ErrInvalid, `Expected "(" but got "." at [1:10]`},
		{"END as a qualifier", "SELECT end.hadm_id FROM `physionet-data.mimiciv_3_1_hosp.admissions` AS `end`", ErrInvalid, "Unexpected keyword END at [1:8]"},
		// WHERE is evaluated before the SELECT list: its aliases are not in
		// scope there (BigQuery's reusable column aliases are off by default).
		{"SELECT alias in WHERE", "SELECT d.hadm_id, CASE WHEN d.icd_code LIKE 'A41%' THEN 'Sepsis' END AS sepsis_type FROM `physionet-data.mimiciv_3_1_hosp.diagnoses_icd` d WHERE sepsis_type IS NOT NULL", ErrInvalid, "Unrecognized name: sepsis_type at [1:146]"},
		{"SELECT alias in WHERE, inside a function", "SELECT p.anchor_age + 1 AS older FROM `physionet-data.mimiciv_3_1_hosp.patients` p JOIN `physionet-data.mimiciv_3_1_hosp.admissions` a ON a.subject_id = p.subject_id WHERE ABS(older) > 3", ErrInvalid, "Unrecognized name: older"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := (&Translator{Catalog: testCatalog}).Translate(c.sql)
			if !errors.Is(err, c.want) || !strings.Contains(fmt.Sprint(err), c.msg) {
				t.Errorf("Translate(%q) = %q, %v; want %v containing %q", c.sql, out, err, c.want, c.msg)
			}
		})
	}
}

func TestTranslateAcceptsCompatibleComparisons(t *testing.T) {
	for _, sql := range []string{
		"SELECT * FROM `physionet-data.mimiciv_3_1_hosp.diagnoses_icd` d WHERE d.icd_version = 10 AND d.icd_code LIKE 'I21%'",
		"SELECT * FROM `physionet-data.mimiciv_3_1_hosp.admissions` a WHERE a.admittime >= '2150-01-01' AND a.admittime < DATE '2160-01-01'",
		"SELECT * FROM `physionet-data.mimiciv_icu.icustays` i WHERE i.los BETWEEN 1 AND 7.5",
		"SELECT * FROM `physionet-data.mimiciv_3_1_hosp.patients` WHERE dod IS NULL AND gender = 'F'",
		// A CTE column that shadows a MIMIC name by alias is not checked.
		"WITH x AS (SELECT CAST(icd_version AS STRING) AS icd_version FROM `physionet-data.mimiciv_3_1_hosp.diagnoses_icd`) SELECT * FROM x WHERE icd_version = '10'",
		// BETWEEN's AND is not a condition.
		"SELECT * FROM `physionet-data.mimiciv_3_1_hosp.patients` p WHERE p.anchor_age BETWEEN 63 AND 73",
		// An alias named like a column of the table: WHERE reads the column.
		"SELECT p.anchor_age + 1 AS anchor_age FROM `physionet-data.mimiciv_3_1_hosp.patients` p WHERE anchor_age > 3",
		// An alias that an outer query also defines may be a correlated
		// reference: not decided.
		"SELECT * FROM (SELECT 1 AS k) AS o WHERE EXISTS (SELECT p.subject_id AS k FROM `physionet-data.mimiciv_3_1_hosp.patients` p WHERE k = 1)",
		// A source that is not a MIMIC table (a CTE): not decided.
		"WITH c AS (SELECT subject_id AS sid FROM `physionet-data.mimiciv_3_1_hosp.patients`) SELECT sid AS s2 FROM c WHERE sid > 1",
		// A subquery selecting a column, not the row.
		"WITH t AS (SELECT 3 AS x) SELECT a.hadm_id FROM `physionet-data.mimiciv_3_1_hosp.admissions` a WHERE a.hadm_id > (SELECT x FROM t)",
		"WITH t AS (SELECT 3 AS t) SELECT a.hadm_id FROM `physionet-data.mimiciv_3_1_hosp.admissions` a WHERE a.hadm_id > (SELECT q.t FROM t AS q)",
		// A bare name two SELECT lists define, with different types: unknown.
		"WITH c AS (SELECT a.hospital_expire_flag AS died FROM `physionet-data.mimiciv_3_1_hosp.admissions` a), d AS (SELECT died = 1 AS died FROM c) SELECT COUNTIF(died) AS n FROM d",
		// A reserved word quoted, or after a dot, is a name.
		"SELECT `if`.hadm_id FROM `physionet-data.mimiciv_3_1_hosp.admissions` AS `if`",
		// The alias in GROUP BY and HAVING is fine.
		"SELECT p.gender AS g, COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients` p GROUP BY g HAVING n > 1",
	} {
		if _, err := (&Translator{Catalog: testCatalog}).Translate(sql); err != nil {
			t.Errorf("Translate(%q): %v", sql, err)
		}
	}
}

func TestOutputColumnNames(t *testing.T) {
	cases := map[string]string{
		"SELECT COUNT(*), x FROM t": "SELECT count(*) AS f0_, x FROM t",
		"SELECT 1 AS a, 2, t.b, c d, (SELECT 1), CASE WHEN 1 THEN 2 END e FROM t": "SELECT 1 AS a, 2 AS f0_, t.b, c d, (SELECT 1) AS f1_, CASE WHEN 1 THEN 2 END e FROM t",
		"SELECT * EXCEPT (a), t.* FROM t":                                         `SELECT * EXCLUDE (a), t.* FROM t`,
		"WITH x AS (SELECT 1) SELECT MAX(a) FROM x UNION ALL SELECT 2":            "WITH x AS (SELECT 1) SELECT max(a) AS f0_ FROM x UNION ALL SELECT 2",
	}
	for in, want := range cases {
		got, err := Translate(in)
		if err != nil || got != want {
			t.Errorf("Translate(%q)\n got %q, %v\nwant %q", in, got, err, want)
		}
	}
	// The names reach DuckDB's result.
	db := openDuck(t)
	rows, err := db.Query(mustTranslate(t, "SELECT COUNT(*), 5 AS five, SUM(x) FROM UNNEST([1, 2]) AS x"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if got := strings.Join(cols, ","); got != "f0_,five,f1_" {
		t.Errorf("columns %s, want f0_,five,f1_", got)
	}
}

func mustTranslate(tb testing.TB, sql string) string {
	tb.Helper()
	out, err := Translate(sql)
	if err != nil {
		tb.Fatalf("Translate(%q): %v", sql, err)
	}
	return out
}

func TestErrorKinds(t *testing.T) {
	_, err := Translate("SELECT MEDIAN(x) FROM t")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindInvalid || e.Unsupported() || !errors.Is(err, ErrInvalid) || errors.Is(err, ErrUnsupported) {
		t.Errorf("MEDIAN: %#v", err)
	}
	if e != nil && (e.Line != 1 || e.Col != 8 || !strings.Contains(e.Error(), "Function not found: MEDIAN at [1:8]")) {
		t.Errorf("MEDIAN error %q at %d:%d", e.Error(), e.Line, e.Col)
	}
	_, err = Translate("SELECT JSON_VALUE(j, '$.a') FROM t")
	if !errors.As(err, &e) || !e.Unsupported() || !strings.HasPrefix(e.Error(), "unsupported in the embedded engine: ") {
		t.Errorf("JSON_VALUE: %v", err)
	}
}

// Deliberately deep nesting of rules that repeat an operand must end in an
// error, not in exponential output.
func TestDeepNesting(t *testing.T) {
	s := "d"
	for range 30 {
		s = "FORMAT_DATE('%Y-Q%Q', " + s + ")"
	}
	if _, err := Translate("SELECT " + s); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "too complex") {
		t.Errorf("deep FORMAT_DATE: %v", err)
	}
	s = "x"
	for range 30 {
		s = "GREATEST(" + s + ", 1)"
	}
	if _, err := Translate("SELECT " + s); err != nil {
		t.Errorf("deep GREATEST: %v", err)
	}
}

func TestLoadCatalog(t *testing.T) {
	db := openDuck(t)
	ctx := context.Background()
	for _, q := range []string{
		"CREATE SCHEMA mimiciv_3_1_hosp",
		"CREATE TABLE mimiciv_3_1_hosp.patients (subject_id BIGINT, gender VARCHAR, dod DATE, t TIMESTAMP, z TIMESTAMPTZ, f DOUBLE, n DECIMAL(38, 9), b BOOLEAN)",
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	cat, err := LoadCatalog(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"subject_id": "INT64", "gender": "STRING", "dod": "DATE", "t": "DATETIME",
		"z": "TIMESTAMP", "f": "FLOAT64", "n": "NUMERIC", "b": "BOOL"}
	for col, typ := range want {
		if got := cat.ColumnType("mimiciv_3_1_hosp", "patients", strings.ToUpper(col)); got != typ {
			t.Errorf("%s: %q, want %q", col, got, typ)
		}
	}
	if !cat.HasTable("mimiciv_3_1_hosp", "patients") || cat.HasTable("mimiciv_3_1_hosp", "Patients") || cat.HasSchema("mimiciv_3_1_icu") {
		t.Error("HasTable/HasSchema")
	}
}

// A script of queries is BigQuery's too (it returns the last query's
// result): the last statement is the query, the ones before it checks the
// engine binds first, each translated with positions in the script.
func TestScript(t *testing.T) {
	tr := &Translator{Catalog: testCatalog}
	q, binds, err := tr.TranslateChecked("SELECT 1 AS a;\nSELECT subject_id FROM `physionet-data.mimiciv_3_1_hosp.patients` p;")
	if err != nil || strings.TrimSpace(q) != `SELECT subject_id FROM "mimiciv_3_1_hosp"."patients" p` || len(binds) != 1 || strings.TrimSpace(binds[0]) != "SELECT 1 AS a" {
		t.Errorf("script: %q, %q, %v", q, binds, err)
	}
	for _, bad := range []string{"SELECT 1;\nSELECT nope(1)", "SELECT 1; ;", ";SELECT 1"} {
		if _, _, err := tr.TranslateChecked(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want the model's error", bad, err)
		}
	}
	if _, _, err := tr.TranslateChecked("SELECT 1;\nSELECT nope(1)"); err == nil || !strings.Contains(err.Error(), "[2:8]") {
		t.Errorf("error position not the script's: %v", err)
	}
}

// A LIKE pattern that is not a literal escapes with the backslash whatever
// the bridge knows of its type (operators reference, LIKE): a STRING one
// through bq_like_pattern, one of a type the model cannot tell (a column
// of a table the translator has no catalogue for) through
// bq_like_any_pattern, which dispatches on the value's type as it runs.
func TestLikePatternOfEveryType(t *testing.T) {
	const q = "SELECT COUNT(*) FROM `physionet-data.mimiciv_3_1_hosp.patients` WHERE gender LIKE gender"
	for _, c := range []struct {
		cat  Catalog
		want string
	}{
		{testCatalog, `LIKE bq_like_pattern(gender) ESCAPE '\'`},
		{nil, `LIKE bq_like_any_pattern(gender) ESCAPE '\'`},
	} {
		tr := &Translator{Catalog: c.cat}
		out, err := tr.Translate(q)
		if err != nil || !strings.Contains(out, c.want) {
			t.Errorf("catalogue %v: %q, %v; want it to hold %q", c.cat != nil, out, err, c.want)
		}
	}
}
