package mimic

import (
	"compress/gzip"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func buildMini(t *testing.T) (string, *Report) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "mini.duckdb")
	rep, err := Build(context.Background(), BuildOptions{MimicDir: "testdata/mini", Out: out})
	if err != nil {
		t.Fatal(err)
	}
	return out, rep
}

func openRO(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", path+"?access_mode=READ_ONLY")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestBuildMiniFixture(t *testing.T) {
	out, rep := buildMini(t)
	rows := map[string]int64{}
	for _, tr := range rep.Tables {
		rows[tr.Table] = tr.Rows
	}
	want := map[string]int64{
		"mimiciv_3_1_hosp.patients": 3, "mimiciv_3_1_hosp.admissions": 4, "mimiciv_3_1_hosp.diagnoses_icd": 12,
		"mimiciv_3_1_hosp.d_icd_diagnoses": 3, "mimiciv_3_1_hosp.d_labitems": 1, "mimiciv_3_1_icu.icustays": 2,
		"mimiciv_3_1_icu.chartevents": 3, "mimiciv_3_1_derived.charlson": 4,
	}
	for table, n := range want {
		if rows[table] != n {
			t.Errorf("%s: %d rows, want %d", table, rows[table], n)
		}
	}
	if len(rep.Tables) != len(V31.Tables) {
		t.Errorf("report lists %d tables, want all %d", len(rep.Tables), len(V31.Tables))
	}
	missing := rep.Missing()
	if len(missing) != len(V31.Tables)-len(want) {
		t.Errorf("%d missing tables, want %d: %v", len(missing), len(V31.Tables)-len(want), missing)
	}
	db := openRO(t, out)
	// Every table exists, with exactly the schema's columns and types.
	for _, tb := range V31.Tables {
		r, err := db.Query(`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position`, tb.Dataset, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for r.Next() {
			var name, typ string
			if err := r.Scan(&name, &typ); err != nil {
				t.Fatal(err)
			}
			if i >= len(tb.Columns) {
				t.Errorf("%s: extra column %s", tb.FullName(), name)
				break
			}
			dt, _ := duckType(tb.Columns[i].Type)
			if name != tb.Columns[i].Name || typ != dt {
				t.Errorf("%s column %d: %s %s, want %s %s", tb.FullName(), i, name, typ, tb.Columns[i].Name, dt)
			}
			i++
		}
		r.Close()
		if i != len(tb.Columns) {
			t.Errorf("%s: %d columns, want %d", tb.FullName(), i, len(tb.Columns))
		}
	}
	// Values keep their text: codes with leading zeros, quoted commas, empty = NULL.
	var code, title string
	var deathtime sql.NullTime
	var race string
	var admit time.Time
	if err := db.QueryRow(`SELECT icd_code FROM mimiciv_3_1_hosp.diagnoses_icd WHERE hadm_id = 200 AND seq_num = 3`).Scan(&code); err != nil || code != "042" {
		t.Errorf("icd_code %q, %v; want \"042\"", code, err)
	}
	if err := db.QueryRow(`SELECT long_title FROM mimiciv_3_1_hosp.d_icd_diagnoses WHERE icd_code = 'C787'`).Scan(&title); err != nil || title != `Synthetic title with "quotes"` {
		t.Errorf("long_title %q, %v", title, err)
	}
	if err := db.QueryRow(`SELECT deathtime, race, admittime FROM mimiciv_3_1_hosp.admissions WHERE hadm_id = 101`).Scan(&deathtime, &race, &admit); err != nil {
		t.Fatal(err)
	}
	if deathtime.Valid || race != "WHITE" || !admit.Equal(time.Date(2156, 12, 31, 23, 59, 59, 0, time.UTC)) {
		t.Errorf("deathtime %v race %q admittime %v", deathtime, race, admit)
	}
	var uom string
	var warning sql.NullInt64
	if err := db.QueryRow(`SELECT valueuom, warning FROM mimiciv_3_1_icu.chartevents WHERE stay_id = 2000`).Scan(&uom, &warning); err != nil || uom != "°F" || warning.Valid {
		t.Errorf("valueuom %q warning %v, %v", uom, warning, err)
	}
}

func TestCharlson(t *testing.T) {
	out, _ := buildMini(t)
	db := openRO(t, out)
	type flags struct {
		age, mi, chf, mild, severe, dmNo, dmCC, cancer, meta, renal, aids, cci int64
	}
	want := map[int64]flags{
		// I214 (MI), E119 (diabetes), E112 (diabetes with cc); age 45.
		100: {age: 0, mi: 1, dmNo: 1, dmCC: 1, cci: 0 + 1 + 2},
		// 4280 (CHF), 5723 (severe liver), 5710 (mild liver); age 45 + (2156 - 2150) = 51.
		101: {age: 1, chf: 1, mild: 1, severe: 1, cci: 1 + 1 + 3},
		// 1970 (metastatic), 1550 (malignancy), 042 (AIDS); age 58 + 3 = 61.
		200: {age: 2, cancer: 1, meta: 1, aids: 1, cci: 2 + 6 + 6},
		// C787 (metastatic), N186 (renal), G35 (none); age 91 + 1 = 92.
		300: {age: 4, meta: 1, renal: 1, cci: 4 + 6 + 2},
	}
	r, err := db.Query(`SELECT hadm_id, age_score, myocardial_infarct, congestive_heart_failure, mild_liver_disease,
		severe_liver_disease, diabetes_without_cc, diabetes_with_cc, malignant_cancer, metastatic_solid_tumor,
		renal_disease, aids, charlson_comorbidity_index,
		peripheral_vascular_disease + cerebrovascular_disease + dementia + chronic_pulmonary_disease
		+ rheumatic_disease + peptic_ulcer_disease + paraplegia AS others
		FROM mimiciv_3_1_derived.charlson ORDER BY hadm_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for r.Next() {
		var hadm, others int64
		var f flags
		if err := r.Scan(&hadm, &f.age, &f.mi, &f.chf, &f.mild, &f.severe, &f.dmNo, &f.dmCC, &f.cancer, &f.meta, &f.renal, &f.aids, &f.cci, &others); err != nil {
			t.Fatal(err)
		}
		if f != want[hadm] || others != 0 {
			t.Errorf("hadm %d: got %+v (others %d), want %+v", hadm, f, others, want[hadm])
		}
		n++
	}
	if n != len(want) {
		t.Errorf("%d charlson rows, want %d", n, len(want))
	}
}

func TestCharlsonRules(t *testing.T) {
	cases := []struct {
		rule codeRule
		want string
	}{
		{in(9, 3, "410", "412"), "substr(icd9_code, 1, 3) IN ('410', '412')"},
		{in(10, 4, "I252"), "substr(icd10_code, 1, 4) = 'I252'"},
		{between(9, 4, "4254", "4259"), "substr(icd9_code, 1, 4) BETWEEN '4254' AND '4259'"},
	}
	for _, c := range cases {
		if got := c.rule.sql(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
	if len(charlsonComorbidities) != 17 {
		t.Errorf("%d comorbidities, want 17", len(charlsonComorbidities))
	}
	tb := V31.Table(DatasetDerived, "charlson")
	for _, cm := range charlsonComorbidities {
		if tb.Column(cm.Column) == nil {
			t.Errorf("comorbidity %s is not a column of charlson", cm.Column)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  []string // substrings of the error
	}{
		{"no layout", map[string]string{"x.txt": "x"}, []string{"neither a hosp/ nor an icu/"}},
		{"wrong header", map[string]string{"hosp/patients.csv": "subject_id,sex,anchor_age,anchor_year,anchor_year_group,dod\n1,F,1,2100,x,\n"},
			[]string{"patients.csv", `field 2 is "sex", want "gender"`}},
		{"short header", map[string]string{"hosp/patients.csv": "subject_id,gender\n1,F\n"},
			[]string{"patients.csv", "anchor_age"}},
		{"extra column", map[string]string{"hosp/provider.csv": "provider_id,extra\nP1,x\n"},
			[]string{"provider.csv", `extra field "extra"`}},
		{"empty file", map[string]string{"hosp/provider.csv": ""}, []string{"provider.csv", "no header"}},
		{"bad integer", map[string]string{"hosp/patients.csv": "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod\n1,F,old,2100,x,\n"},
			[]string{"patients.csv", "old"}},
		{"bad date", map[string]string{"hosp/patients.csv": "subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod\n1,F,1,2100,x,yesterday\n"},
			[]string{"patients.csv", "yesterday"}},
		{"ragged row", map[string]string{"hosp/provider.csv": "provider_id\nP1,extra\n"}, []string{"provider.csv"}},
		{"not gzip", map[string]string{"hosp/provider.csv.gz": "provider_id\nP1\n"}, []string{"provider.csv.gz", "gzip"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, content := range c.files {
				writeFile(t, filepath.Join(dir, "mimic", p), content)
			}
			out := filepath.Join(dir, "out.duckdb")
			_, err := Build(context.Background(), BuildOptions{MimicDir: filepath.Join(dir, "mimic"), Out: out})
			if err == nil {
				t.Fatal("build succeeded")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			for _, p := range []string{out, out + ".building", out + ".building.wal"} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s left behind after a failed build", p)
				}
			}
		})
	}
}

func TestBuildKeepsExistingOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.duckdb")
	writeFile(t, out, "precious")
	if _, err := Build(context.Background(), BuildOptions{MimicDir: "testdata/mini", Out: out}); err == nil {
		t.Fatal("build replaced an existing file without Force")
	}
	if b, _ := os.ReadFile(out); string(b) != "precious" {
		t.Error("existing file changed")
	}
	if _, err := Build(context.Background(), BuildOptions{MimicDir: "testdata/mini", Out: out, Force: true}); err != nil {
		t.Fatal(err)
	}
}

func TestBuildCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := filepath.Join(t.TempDir(), "out.duckdb")
	if _, err := Build(ctx, BuildOptions{MimicDir: "testdata/mini", Out: out}); err == nil {
		t.Fatal("cancelled build succeeded")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("cancelled build left an output file")
	}
}

func TestSchemaWellFormed(t *testing.T) {
	seen := map[string]bool{}
	counts := map[string]int{}
	for _, tb := range V31.Tables {
		if seen[tb.FullName()] {
			t.Errorf("duplicate table %s", tb.FullName())
		}
		seen[tb.FullName()] = true
		counts[tb.Dataset]++
		if tb.Description == "" || len(tb.Columns) == 0 {
			t.Errorf("%s: no description or columns", tb.FullName())
		}
		cols := map[string]bool{}
		for _, c := range tb.Columns {
			if cols[c.Name] {
				t.Errorf("%s: duplicate column %s", tb.FullName(), c.Name)
			}
			cols[c.Name] = true
			if _, err := duckType(c.Type); err != nil {
				t.Errorf("%s.%s: %v", tb.FullName(), c.Name, err)
			}
		}
		if (tb.Module == "") != (tb.Dataset == DatasetDerived) {
			t.Errorf("%s: module %q does not fit dataset", tb.FullName(), tb.Module)
		}
	}
	if counts[DatasetHosp] != 22 || counts[DatasetICU] != 9 || counts[DatasetDerived] != 1 {
		t.Errorf("table counts %v, want 22 hosp, 9 icu, 1 derived", counts)
	}
	// Code columns are strings, identifiers integers.
	for _, ref := range []struct{ dataset, table, col string }{
		{DatasetHosp, "diagnoses_icd", "icd_code"}, {DatasetHosp, "procedures_icd", "icd_code"},
		{DatasetHosp, "prescriptions", "ndc"}, {DatasetHosp, "prescriptions", "gsn"}, {DatasetHosp, "drgcodes", "drg_code"},
		{DatasetHosp, "hcpcsevents", "hcpcs_cd"}, {DatasetHosp, "d_hcpcs", "code"}, {DatasetHosp, "prescriptions", "dose_val_rx"},
	} {
		if c := V31.Table(ref.dataset, ref.table).Column(ref.col); c == nil || c.Type != String {
			t.Errorf("%s.%s.%s is not STRING", ref.dataset, ref.table, ref.col)
		}
	}
	if got := V31.Table(DatasetHosp, "patients").BigQueryName(); got != "physionet-data.mimiciv_3_1_hosp.patients" {
		t.Errorf("BigQueryName %s", got)
	}
}

// TestBuildRecordsFacts: the database says what it holds (FactsTable):
// its source, patient count, build time and a fingerprint of the source
// files, which engines read back for a run's manifest.
func TestBuildRecordsFacts(t *testing.T) {
	out, rep := buildMini(t)
	db := openRO(t, out)
	var source, sum, producer string
	var patients int64
	var built time.Time
	if err := db.QueryRow("SELECT source, patients, built_at, source_sha256, producer FROM "+FactsTable).Scan(&source, &patients, &built, &sum, &producer); err != nil {
		t.Fatalf("no facts recorded: %v", err)
	}
	if source != SourceFull || patients != 3 || len(sum) != 64 || producer == "" || time.Since(built) > time.Hour {
		t.Errorf("facts: source %q patients %d built %v sha256 %q producer %q", source, patients, built, sum, producer)
	}
	if rep.Facts.Patients != 3 || rep.Facts.SourceSHA256 != sum {
		t.Errorf("report facts %+v, database says %d patients, %s", rep.Facts, patients, sum)
	}
	var row [4]any
	if err := db.QueryRow(FactsQuery).Scan(&row[0], &row[1], &row[2], &row[3]); err != nil {
		t.Fatal(err)
	}
	f, err := ParseFacts(row[:])
	if err != nil || f.Patients != 3 || f.Source != SourceFull || f.SourceSHA256 != sum || !f.Built.Equal(built) {
		t.Errorf("ParseFacts(%v) = %+v, %v", row, f, err)
	}
	if !IsSample(f.Patients) || IsSample(V31Patients) {
		t.Error("IsSample")
	}
	// The same files give the same fingerprint.
	_, rep2 := buildMini(t)
	if rep2.Facts.SourceSHA256 != sum {
		t.Errorf("fingerprint not stable: %s then %s", sum, rep2.Facts.SourceSHA256)
	}
	// PhysioNet's list of the demo's patients makes the source the demo.
	demo := t.TempDir()
	writeFile(t, filepath.Join(demo, "demo_subject_id.csv"), "subject_id\n10000032\n")
	if got := sourceKind(demo); got != SourceDemo {
		t.Errorf("sourceKind(demo) = %q", got)
	}
}

// A malformed row deep in a gzip file fails the build with the file, the
// line and the reason, not DuckDB's page of auto-detection advice.
func TestBuildMalformedLine(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("subject_id,gender,anchor_age,anchor_year,anchor_year_group,dod\n")
	for i := range 50_000 {
		fmt.Fprintf(&b, "%d,F,40,2150,2011 - 2013,\n", 10_000_000+i)
	}
	b.WriteString("20000000,M,forty,2150,2011 - 2013,\n")
	path := filepath.Join(dir, "mimic", "hosp", "patients.csv.gz")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	zw.Write([]byte(b.String()))
	zw.Close()
	f.Close()
	_, err = Build(context.Background(), BuildOptions{MimicDir: filepath.Join(dir, "mimic"), Out: filepath.Join(dir, "out.duckdb")})
	if err == nil {
		t.Fatal("build succeeded")
	}
	for _, want := range []string{"patients.csv.gz line 50002:", `"forty"`, "BIGINT", "anchor_age"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "Possible") || strings.Count(err.Error(), "\n") > 0 {
		t.Errorf("error keeps DuckDB's advice: %q", err)
	}
}

// The manifest beside the database gives its size and every table's rows.
func TestBuildManifest(t *testing.T) {
	out, rep := buildMini(t)
	m, err := ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bytes != st.Size() || m.Bytes == 0 {
		t.Errorf("manifest says %d bytes, the file has %d", m.Bytes, st.Size())
	}
	if len(m.Tables) != len(V31.Tables) || m.Rows() != rep.Rows() || m.Facts.Patients != 3 || m.Attempt != 1 {
		t.Errorf("manifest %d tables, %d rows, facts %+v, attempt %d; report %d rows", len(m.Tables), m.Rows(), m.Facts, m.Attempt, rep.Rows())
	}
	for _, tr := range m.Tables {
		if tr.Table == "mimiciv_3_1_hosp.patients" && (tr.Rows != 3 || tr.File != "hosp/patients.csv") {
			t.Errorf("patients in the manifest: %+v", tr)
		}
	}
}

// The benchmark baseline loads every file, with DuckDB's own detection.
func TestPlainLoad(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plain.duckdb")
	rep, err := PlainLoad(context.Background(), "testdata/mini", out, 1, "1GB")
	if err != nil {
		t.Fatal(err)
	}
	_, built := buildMini(t)
	want := map[string]int64{}
	for _, tr := range built.Tables {
		if !tr.Missing && !tr.Derived {
			want[tr.Table] = tr.Rows
		}
	}
	if len(rep.Tables) != len(want) || rep.Bytes == 0 {
		t.Errorf("plain load: %d tables, %d bytes; build loaded %d", len(rep.Tables), rep.Bytes, len(want))
	}
	for _, tr := range rep.Tables {
		if want[tr.Table] != tr.Rows {
			t.Errorf("%s: %d rows, build loaded %d", tr.Table, tr.Rows, want[tr.Table])
		}
	}
}
