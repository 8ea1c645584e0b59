package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/batch"
	"github.com/clinsql/clinsql/internal/fixtures"
)

const miniMIMIC = "../../executor/mimic/testdata/mini"

func runExecCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }}
	code = run(context.Background(), env, args)
	return code, out.String(), errb.String()
}

// buildMini builds the synthetic MIMIC fixture once per test.
func buildMini(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "mini.duckdb")
	code, out, errs := runExecCLI(t, "db", "build", "--mimic", miniMIMIC, "--out", db)
	if code != 0 {
		t.Fatalf("db build exited %d: %s%s", code, out, errs)
	}
	return db
}

func TestDBBuildReport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mini.duckdb")
	code, out, errs := runExecCLI(t, "db", "build", "--mimic", miniMIMIC, "--out", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"mimiciv_3_1_hosp.patients", "3 rows", "mimiciv_3_1_derived.charlson", "no file: created empty",
		"built " + db + ": 32 tables (8 loaded or derived), 32 rows", "empty tables (no file): 24", "  mimiciv_3_1_icu.inputevents",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	// A second build into the same file is refused unless forced.
	if code, _, errs := runExecCLI(t, "db", "build", "--mimic", miniMIMIC, "--out", db); code != 1 || !strings.Contains(errs, "already exists") {
		t.Errorf("rebuild: exit %d, %s", code, errs)
	}
	if code, _, _ := runExecCLI(t, "db", "build", "--mimic", miniMIMIC); code != 2 {
		t.Errorf("missing --out: exit %d, want 2", code)
	}
}

func TestExecSQL(t *testing.T) {
	db := buildMini(t)
	cases := []struct {
		name   string
		sql    string
		code   int
		stdout string
		stderr string
	}{
		{"ok", "SELECT subject_id, gender, dod FROM mimiciv_3_1_hosp.patients ORDER BY subject_id", 0,
			"subject_id,gender,dod\n1,F,\n2,M,2163-04-02\n3,M,\n", ""},
		{"charlson", "SELECT hadm_id, charlson_comorbidity_index AS cci FROM mimiciv_3_1_derived.charlson ORDER BY cci DESC LIMIT 1", 0,
			"hadm_id,cci\n200,14\n", ""},
		{"syntax", "SELEC 1", 3, "", "syntax_error: Parser Error"},
		{"unknown table", "SELECT * FROM mimiciv_3_1_hosp.nope", 3, "", "syntax_error: Catalog Error"},
		{"runtime", "SELECT CAST(gender AS INTEGER) FROM mimiciv_3_1_hosp.patients", 4, "", "runtime_error: Conversion Error"},
		{"refused", "DROP TABLE mimiciv_3_1_hosp.patients", 8, "", "refused: only a read-only SELECT"},
		{"two statements", "SELECT 1; SELECT 2", 8, "", "refused: exactly one SELECT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runExecCLI(t, "exec", "--db", db, "--sql", c.sql)
			if code != c.code {
				t.Fatalf("exit %d, want %d (%s)", code, c.code, errs)
			}
			if c.stdout != "" && out != c.stdout {
				t.Errorf("stdout %q, want %q", out, c.stdout)
			}
			if !strings.Contains(errs, c.stderr) {
				t.Errorf("stderr %q lacks %q", errs, c.stderr)
			}
		})
	}
	code, _, errs := runExecCLI(t, "exec", "--db", db, "--max-rows", "1", "--sql", "SELECT * FROM range(5)")
	if code != 0 || !strings.Contains(errs, "truncated to 1 of 5 rows") {
		t.Errorf("row cap: exit %d, %q", code, errs)
	}
	code, _, _ = runExecCLI(t, "exec", "--db", db, "--timeout", "200ms", "--sql",
		"SELECT count(*) FROM range(1000000000) a, range(1000000000) b WHERE a.range + b.range = 7")
	if code != 5 {
		t.Errorf("timeout: exit %d, want 5", code)
	}
}

func TestExecUsage(t *testing.T) {
	cases := [][]string{
		{"exec"},
		{"exec", "--db", "x", "--sql", "SELECT 1", "--tasks", "y"},
		{"exec", "--db", "x", "--tasks", "y", "--out", "z"},
		{"exec", "--db", "x", "--tasks", "y", "--gold"},
		{"exec", "--engine", "oracle", "--db", "x", "--sql", "SELECT 1"},
		{"exec", "--sql", "SELECT 1"},
	}
	for _, args := range cases {
		if code, _, errs := runExecCLI(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	code, _, errs := runExecCLI(t, "exec", "-h")
	if code != 0 || !strings.Contains(errs, " 8  refused") || !strings.Contains(errs, "10  infra_error") {
		t.Errorf("help: exit %d, lacks exit codes: %s", code, errs)
	}
}

func TestExecGold(t *testing.T) {
	db := buildMini(t)
	root := t.TempDir()
	splits, err := fixtures.WriteClinSQL(root)
	if err != nil {
		t.Fatal(err)
	}
	// Give the tasks gold SQL with known outcomes on the mini database.
	tasks := fixtures.Tasks()
	want := map[string]executor.Class{}
	for i, tk := range tasks {
		var q string
		var class executor.Class
		switch i % 3 {
		case 0:
			q = "SELECT gender, count(*) AS n\r\nFROM mimiciv_3_1_hosp.patients GROUP BY gender ORDER BY gender;\r\n"
		case 1:
			q, class = "SELECT nope FROM mimiciv_3_1_hosp.patients;", executor.ClassSyntax
		case 2:
			q, class = "DELETE FROM mimiciv_3_1_hosp.patients;", executor.ClassRefused
		}
		key := tk.Split + "/" + tk.Domain + "/" + tk.Level + "/" + tk.ID
		want[key] = class
		if err := os.WriteFile(filepath.Join(splits, tk.Path(), "sql_"+tk.ID+".sql"), []byte(q), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "run")
	// A stale CSV from an earlier run must not survive a failure.
	stale := filepath.Join(out, tasks[1].Split, tasks[1].Domain, tasks[1].Level, tasks[1].ID, "result_"+tasks[1].ID+".csv")
	os.MkdirAll(filepath.Dir(stale), 0o755)
	os.WriteFile(stale, []byte("old\n"), 0o644)

	code, stdout, errs := runExecCLI(t, "exec", "--db", db, "--tasks", root, "--gold", "--out", out, "--concurrency", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sum batch.Summary
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	var nOK int
	for _, c := range want {
		if c == "" {
			nOK++
		}
	}
	if sum.Total != len(tasks) || sum.Succeeded != nOK || len(sum.Failures) != len(tasks)-nOK {
		t.Fatalf("summary total %d succeeded %d failures %d; want %d, %d, %d", sum.Total, sum.Succeeded, len(sum.Failures), len(tasks), nOK, len(tasks)-nOK)
	}
	for _, f := range sum.Failures {
		if want[f.Task] != f.Class || f.Error == "" {
			t.Errorf("failure %+v, want class %s", f, want[f.Task])
		}
	}
	for key, class := range want {
		id := key[strings.LastIndex(key, "/")+1:]
		csv, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(key), "result_"+id+".csv"))
		if class != "" {
			if err == nil {
				t.Errorf("%s failed but has a result CSV", key)
			}
			continue
		}
		if string(csv) != "gender,n\nF,1\nM,2\n" {
			t.Errorf("%s: CSV %q, %v", key, csv, err)
		}
	}
	if !strings.Contains(stdout, "succeeded") || !strings.Contains(stdout, "summary.json") {
		t.Errorf("stdout: %s", stdout)
	}
}
