package bigquery

import (
	"context"
	"testing"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/internal/bqfake"
)

var testMapping = map[string]string{
	"physionet-data.mimiciv_3_1_hosp":    "my-copy.mimic_hosp",
	"physionet-data.mimiciv_3_1_icu":     "my-copy.mimic_icu",
	"physionet-data.mimiciv_3_1_derived": "my-copy.mimic_derived",
	"physionet-data.mimiciv_hosp":        "my-copy.mimic_hosp",
}

func TestRewrite(t *testing.T) {
	d := newDatasetMap(testMapping)
	cases := []struct{ name, in, want string }{
		{"one backticked path", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.patients` p",
			"SELECT * FROM `my-copy.mimic_hosp.patients` p"},
		{"backticked project", "FROM `physionet-data`.mimiciv_3_1_icu.icustays",
			"FROM `my-copy.mimic_icu.icustays`"},
		{"backticked parts", "FROM `physionet-data`.`mimiciv_3_1_icu`.`chartevents`",
			"FROM `my-copy.mimic_icu.chartevents`"},
		{"backticked dataset path", "FROM `physionet-data.mimiciv_3_1_derived`.charlson c",
			"FROM `my-copy.mimic_derived.charlson` c"},
		{"unquoted dashed project", "FROM physionet-data.mimiciv_3_1_hosp.admissions a JOIN physionet-data.mimiciv_3_1_hosp.patients p USING (subject_id)",
			"FROM `my-copy.mimic_hosp.admissions` a JOIN `my-copy.mimic_hosp.patients` p USING (subject_id)"},
		{"unversioned alias", "FROM `physionet-data.mimiciv_hosp.labevents`", "FROM `my-copy.mimic_hosp.labevents`"},
		{"string literal untouched", "SELECT 'physionet-data.mimiciv_3_1_hosp.patients' AS s, \"`physionet-data.mimiciv_3_1_hosp.x`\"",
			"SELECT 'physionet-data.mimiciv_3_1_hosp.patients' AS s, \"`physionet-data.mimiciv_3_1_hosp.x`\""},
		{"triple-quoted and raw strings untouched", "SELECT '''a ' `physionet-data.mimiciv_3_1_hosp.t` ''', r'\\d+`x`', b\"\\\"\" FROM `physionet-data.mimiciv_3_1_hosp.t`",
			"SELECT '''a ' `physionet-data.mimiciv_3_1_hosp.t` ''', r'\\d+`x`', b\"\\\"\" FROM `my-copy.mimic_hosp.t`"},
		{"escaped quote in raw string", "SELECT r'\\' FROM `physionet-data.mimiciv_3_1_hosp.t`'", "SELECT r'\\' FROM `physionet-data.mimiciv_3_1_hosp.t`'"},
		{"comments untouched", "-- from `physionet-data.mimiciv_3_1_hosp.patients`\n/* physionet-data.mimiciv_3_1_icu.x */ SELECT 1 # physionet-data.mimiciv_3_1_hosp.y",
			"-- from `physionet-data.mimiciv_3_1_hosp.patients`\n/* physionet-data.mimiciv_3_1_icu.x */ SELECT 1 # physionet-data.mimiciv_3_1_hosp.y"},
		{"unmapped dataset", "FROM `physionet-data.mimiciv_ed.edstays`", "FROM `physionet-data.mimiciv_ed.edstays`"},
		{"unqualified dataset", "FROM mimiciv_3_1_hosp.patients", "FROM mimiciv_3_1_hosp.patients"},
		{"column path not a table", "SELECT p.subject_id - physionet.data FROM t p", "SELECT p.subject_id - physionet.data FROM t p"},
		{"subtraction with spaces", "SELECT physionet - data.mimiciv_3_1_hosp.x", "SELECT physionet - data.mimiciv_3_1_hosp.x"},
		{"information schema", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.INFORMATION_SCHEMA.COLUMNS`",
			"SELECT * FROM `my-copy.mimic_hosp.INFORMATION_SCHEMA.COLUMNS`"},
		{"unterminated backtick", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.patients", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.patients"},
		{"lone backtick", "SELECT `", "SELECT `"},
		{"unterminated string", "SELECT 'physionet-data.mimiciv_3_1_hosp.x", "SELECT 'physionet-data.mimiciv_3_1_hosp.x"},
		{"multibyte", "SELECT '≥' AS ≥x FROM `physionet-data.mimiciv_3_1_hosp.p`", "SELECT '≥' AS ≥x FROM `my-copy.mimic_hosp.p`"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := d.rewrite(c.in); got != c.want {
				t.Errorf("rewrite\n got  %s\n want %s", got, c.want)
			}
		})
	}
	if got := (*datasetMap)(nil).rewrite("SELECT 1"); got != "SELECT 1" {
		t.Errorf("nil map changed the text: %q", got)
	}
}

func FuzzRewrite(f *testing.F) {
	f.Add("SELECT * FROM `physionet-data.mimiciv_3_1_hosp.patients`")
	f.Add("FROM physionet-data.mimiciv_3_1_icu.x -- `")
	f.Add("'''\\'''`a`.b.c")
	d := newDatasetMap(testMapping)
	f.Fuzz(func(t *testing.T, s string) {
		out := d.rewrite(s)
		if len(out) == 0 && len(s) != 0 {
			t.Fatalf("rewrite(%q) lost the text", s)
		}
	})
}

// Mapped queries reach BigQuery rewritten, and BigQuery's messages name the
// datasets as the SQL did.
func TestDatasetMappingEndToEnd(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Datasets = testMapping })
	const sql = "SELECT COUNT(*) FROM physionet-data.mimiciv_3_1_hosp.patients WHERE gender = 'physionet-data.mimiciv_3_1_hosp.x'"
	const sent = "SELECT COUNT(*) FROM `my-copy.mimic_hosp.patients` WHERE gender = 'physionet-data.mimiciv_3_1_hosp.x'"
	f.srv.Script(sent, bqfake.Query{BytesProcessed: 1 << 20, ReferencedTables: []string{"my-copy.mimic_hosp.patients"},
		Schema: []bqfake.Field{{Name: "f0_", Type: "INTEGER"}}, Rows: [][]any{{"100"}}})
	res, err := f.eng.Query(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows[0][0] != int64(100) {
		t.Errorf("rows %v", res.Rows)
	}
	for _, r := range f.srv.Calls("jobs.insert") {
		if got := bqfake.BodyAt(r.Body, "configuration", "query", "query"); got != sent {
			t.Errorf("sent %q", got)
		}
	}
	est, err := f.eng.DryRun(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	if len(est.ReferencedTables) != 1 || est.ReferencedTables[0] != "physionet-data.mimiciv_3_1_hosp.patients" {
		t.Errorf("referenced tables %v, want the names the SQL used", est.ReferencedTables)
	}

	const bad = "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.patientz`"
	f.srv.Script("SELECT * FROM `my-copy.mimic_hosp.patientz`", bqfake.Query{DryRunError: &bqfake.Fault{Reason: "notFound",
		Message: "Not found: Table my-copy:mimic_hosp.patientz was not found in location US"}})
	_, err = f.eng.Query(context.Background(), bad)
	xe, _ := xerr(t, err, executor.ClassSyntax)
	if want := "Not found: Table physionet-data:mimiciv_3_1_hosp.patientz was not found in location US"; xe.Message != want {
		t.Errorf("message %q, want %q", xe.Message, want)
	}
}
