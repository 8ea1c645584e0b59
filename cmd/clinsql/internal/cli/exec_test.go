package cli

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/judge"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/runfolder"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/internal/fixtures"
)

const miniMIMIC = "../../../../executor/mimic/testdata/mini"

// buildMini builds the synthetic MIMIC fixture once per test.
func buildMini(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "mini.duckdb")
	code, out, errs := runCLI(t, "", "db", "build", "--mimic", miniMIMIC, "--out", db)
	if code != 0 {
		t.Fatalf("db build exited %d: %s%s", code, out, errs)
	}
	return db
}

func TestDBBuildReport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "mini.duckdb")
	code, out, errs := runCLI(t, "", "db", "build", "--mimic", miniMIMIC, "--out", db)
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
	if code, _, errs := runCLI(t, "", "db", "build", "--mimic", miniMIMIC, "--out", db); code != 1 || !strings.Contains(errs, "already exists") {
		t.Errorf("rebuild: exit %d, %s", code, errs)
	}
	if code, _, _ := runCLI(t, "", "db", "build", "--mimic", miniMIMIC); code != 2 {
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
		flags  []string
	}{
		{"ok", "SELECT subject_id, gender, dod FROM `physionet-data.mimiciv_3_1_hosp.patients` ORDER BY subject_id", 0,
			"subject_id,gender,dod\n1,F,\n2,M,2163-04-02\n3,M,\n", "", nil},
		{"charlson", "SELECT hadm_id, charlson_comorbidity_index AS cci FROM `physionet-data.mimiciv_3_1_derived.charlson` ORDER BY cci DESC LIMIT 1", 0,
			"hadm_id,cci\n200,14\n", "", nil},
		{"syntax", "SELEC 1", 11, "", "syntax_error: ", nil},
		{"unknown table", "SELECT * FROM `physionet-data.mimiciv_3_1_hosp.nope`", 11, "", "syntax_error: ", nil},
		{"unknown column", "SELECT nope FROM `physionet-data.mimiciv_3_1_hosp.patients`", 11, "", "syntax_error: ", nil},
		{"runtime", "SELECT CAST(gender AS INT64) FROM `physionet-data.mimiciv_3_1_hosp.patients`", 4, "", "runtime_error: ", nil},
		// The 3-patient database is a sample: by default a division by zero
		// gives NULL, with a warning; BigQuery's rule on request.
		{"division by zero on a sample", "SELECT subject_id, 1 / (anchor_age - anchor_age) AS r, MOD(subject_id, 0) AS m FROM `physionet-data.mimiciv_3_1_hosp.patients` ORDER BY 1", 0,
			"subject_id,r,m\n1,,\n2,,\n3,,\n", `warning: BigQuery would fail here with "division by zero: 1 / 0"`, nil},
		{"division by zero as BigQuery", "SELECT 1 / (anchor_age - anchor_age) FROM `physionet-data.mimiciv_3_1_hosp.patients`", 4, "", "runtime_error: division by zero: 1 / 0", []string{"--zero-division", "error"}},
		{"division by zero as NULL", "SELECT 1 / 0 AS r", 0, "r\n\n", "warning: ", []string{"--zero-division", "null"}},
		{"bad zero-division mode", "SELECT 1", 2, "", "--zero-division must be auto, error or null", []string{"--zero-division", "never"}},
		// BigQuery analyses every CTE, read or not.
		{"error in an unread CTE", "WITH a AS (SELECT 1 AS x), b AS (SELECT nope FROM a) SELECT x FROM a", 11, "", "syntax_error: Unrecognized name: nope", nil},
		{"refused", "DROP TABLE `physionet-data.mimiciv_3_1_hosp.patients`", 8, "", "refused: only a single read-only SELECT", nil},
		{"hidden delete", "SELECT 1; # x\nDELETE FROM `physionet-data.mimiciv_3_1_hosp.patients` WHERE TRUE", 8, "", "refused: ", nil},
		{"copy", "COPY (SELECT 1) TO '/tmp/clinsql-x.csv'", 8, "", "refused: ", nil},
		{"install", "INSTALL httpfs", 8, "", "refused: ", nil},
		// BigQuery runs a script of queries; its result is the last one's.
		{"a script of queries", "SELECT 1; SELECT 2 AS b", 0, "b\n2\n", "", nil},
		{"a script with another statement", "SELECT 1; DROP TABLE `physionet-data.mimiciv_3_1_hosp.patients`", 8, "", "refused: ", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, "", append(append([]string{"exec", "--db", db}, c.flags...), "--sql", c.sql)...)
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
	code, _, errs := runCLI(t, "", "exec", "--db", db, "--max-rows", "1", "--sql", "SELECT x FROM UNNEST(GENERATE_ARRAY(1, 5)) AS x")
	if code != 0 || !strings.Contains(errs, "truncated to 1 of 5 rows") {
		t.Errorf("row cap: exit %d, %q", code, errs)
	}
	code, _, _ = runCLI(t, "", "exec", "--db", db, "--timeout", "200ms", "--sql",
		"SELECT COUNT(*) FROM UNNEST(GENERATE_ARRAY(1, 1000000)) AS a CROSS JOIN UNNEST(GENERATE_ARRAY(1, 1000000)) AS b WHERE a + b = 7")
	if code != 5 {
		t.Errorf("timeout: exit %d, want 5", code)
	}
	// A timeout so short that the engine's own first query (counting
	// patients for --zero-division auto) is cut is still a timeout.
	code, _, errs = runCLI(t, "", "exec", "--db", db, "--timeout", "1ns", "--sql", "SELECT 1")
	if code != 5 || !strings.Contains(errs, "timeout") {
		t.Errorf("--timeout 1ns: exit %d, want 5 (%s)", code, errs)
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
		if code, _, errs := runCLI(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", args, code, errs)
		}
	}
	code, _, errs := runCLI(t, "", "exec", "-h")
	if code != 0 || !strings.Contains(errs, "  8  a query failed: refused") || !strings.Contains(errs, " 11  a query failed: syntax_error") {
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
			q = "SELECT gender, COUNT(*) AS n\r\nFROM `physionet-data.mimiciv_3_1_hosp.patients` GROUP BY gender ORDER BY gender;\r\n"
		case 1:
			q, class = "SELECT nope FROM `physionet-data.mimiciv_3_1_hosp.patients`;", executor.ClassSyntax
		case 2:
			q, class = "DELETE FROM `physionet-data.mimiciv_3_1_hosp.patients` WHERE TRUE;", executor.ClassRefused
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

	code, stdout, errs := runCLI(t, "", "exec", "--db", db, "--tasks", root, "--gold", "--out", out, "--concurrency", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// Not on a terminal: no control characters, one progress summary line.
	if strings.ContainsAny(errs, "\r\x1b") || strings.Count("\n"+errs, "\nexec ") != 1 ||
		!strings.Contains(errs, fmt.Sprintf("exec %d/%d (100%%)", len(tasks), len(tasks))) {
		t.Errorf("piped progress: want one summary line and no control characters:\n%q", errs)
	}
	// On a terminal the line is redrawn in place.
	ttyErrs := runInPty(t, "exec", "--db", db, "--tasks", root, "--gold", "--out", t.TempDir())
	if !strings.Contains(ttyErrs, "\r\x1b[Kexec [") {
		t.Errorf("on a terminal: no progress line drawn in place:\n%q", ttyErrs)
	}
	sum := readSummary(t, out)
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

// TestExecHostileWithBridge sends hostile BigQuery-spelled SQL through the
// whole path (bridge, parser check, engine): each is refused, with a clear
// message and exit code 8, and the database file is unchanged.
func TestExecHostileWithBridge(t *testing.T) {
	db := buildMini(t)
	sum := func() [32]byte {
		b, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	before := sum()
	for _, q := range []string{
		"DROP TABLE `physionet-data.mimiciv_3_1_hosp.patients`",
		"INSERT INTO `physionet-data.mimiciv_3_1_hosp.patients` (subject_id) VALUES (9)",
		"UPDATE `physionet-data.mimiciv_3_1_hosp.patients` SET gender = 'X' WHERE TRUE",
		"ATTACH '/tmp/clinsql-hostile.duckdb' AS h",
		"COPY `physionet-data.mimiciv_3_1_hosp.patients` TO '/tmp/clinsql-hostile.csv'",
		"INSTALL httpfs",
		"LOAD httpfs",
		"PRAGMA database_list",
		// ("SELECT 1; SELECT 2" is a script BigQuery runs, giving the last
		// query's result: TestExecSQL; a script with another statement
		// kind is refused.)
		"SELECT 1 -- harmless\n; DROP TABLE `physionet-data.mimiciv_3_1_hosp.patients`",
		"SELECT 1 /* ; */; DELETE FROM `physionet-data.mimiciv_3_1_hosp.patients` WHERE TRUE",
		"CREATE TEMP TABLE t AS SELECT 1 AS x",
	} {
		code, _, errs := runCLI(t, "", "exec", "--db", db, "--sql", q)
		if code != 8 || !strings.Contains(errs, "refused: ") || !strings.Contains(errs, "SELECT") {
			t.Errorf("%q: exit %d, %s", q, code, errs)
		}
	}
	// SET is BigQuery's procedural variable assignment: the bridge
	// classifies the script itself (unsupported, exit 9) and returns no SQL,
	// so DuckDB never sees it as its own SET.
	if code, _, errs := runCLI(t, "", "exec", "--db", db, "--sql", "SET memory_limit = '100GB'"); code != 9 || !strings.Contains(errs, "procedural") {
		t.Errorf("SET: exit %d, %s", code, errs)
	}
	if code, out, _ := runCLI(t, "", "exec", "--db", db, "--sql", "SELECT COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients`"); code != 0 || out != "n\n3\n" {
		t.Errorf("patients after the attempts: exit %d, %q", code, out)
	}
	if sum() != before {
		t.Error("database file changed")
	}
}

// writeRecordedRun writes a recorded run (model "recorded") answering every
// fixture task with one query, without result files.
func writeRecordedRun(t *testing.T, dir string) string {
	t.Helper()
	rec := filepath.Join(dir, "recorded")
	for _, task := range fixtures.Tasks() {
		d := filepath.Join(rec, task.Path())
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		sum := `{"query":"q","final_sql":"SELECT gender, COUNT(*) AS n FROM ` + "`physionet-data.mimiciv_3_1_hosp.patients`" + ` GROUP BY gender ORDER BY gender","execution_success":true,"row_count":2,"final_error":null,"model":"recorded","refinement_attempts":[]}`
		if err := os.WriteFile(filepath.Join(d, "execution_summary.json"), []byte(sum), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return rec
}

// TestJudgeReExecutedRun: recorded decisions about a results leaf judged
// the recorded engine's result. A run that re-executed the SQL elsewhere
// gets them only where its result is the recorded one byte for byte; every
// other results leaf code cannot decide is invalid (other_result), never
// scored by another result's verdict. The SQL decisions still apply.
func TestJudgeReExecutedRun(t *testing.T) {
	dir, grading := fixtureRun(t)
	db := buildMini(t)
	rec := writeRecordedRun(t, dir)
	tasks := fixtures.Tasks()
	first := filepath.Join(dir, "first")
	if code, stdout, stderr := runCLI(t, dir, "exec", "--db", db, "--tasks", dir, "--run", rec, "--out", first); code != 0 {
		t.Fatalf("exec: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The recorded run's result: for task 0 the bytes this engine returns,
	// for task 1 another result (as BigQuery's on the whole database).
	same, other := tasks[0], tasks[1]
	b, err := os.ReadFile(filepath.Join(first, same.Path(), runfolder.ResultFile(same.ID)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rec, same.Path(), runfolder.ResultFile(same.ID)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rec, other.Path(), runfolder.ResultFile(other.ID)), []byte("gender,n\nF,180000\nM,170000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "again")
	if code, stdout, stderr := runCLI(t, dir, "exec", "--db", db, "--tasks", dir, "--run", rec, "--out", out); code != 0 {
		t.Fatalf("exec: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The run is the same re-execution whichever of its folders is named,
	// with or without its manifest, and whatever digest its summaries
	// claim for the recorded result (issue 25 #1: each of these replayed
	// every recorded results decision, as if the run were the recorded
	// one). sameResults is how many results decisions may be replayed:
	// with the recorded run reachable, only that of the task whose result
	// is the recorded one, both files read; without it, none.
	for _, tc := range []struct {
		name        string
		prepare     func(t *testing.T, run string) string // returns the folder to judge
		sameResults int
		args        []string
	}{
		{"run folder", func(t *testing.T, run string) string { return run }, 1, nil},
		{"split folder", func(t *testing.T, run string) string { return filepath.Join(run, "validation") }, 1, []string{"--allow-partial"}},
		{"recorded digests forged", func(t *testing.T, run string) string {
			forgeRecordedDigests(t, run, tasks)
			return run
		}, 1, nil},
		{"manifest removed", func(t *testing.T, run string) string {
			if err := os.Remove(filepath.Join(run, runfolder.ManifestFile)); err != nil {
				t.Fatal(err)
			}
			return run
		}, 0, nil},
		{"manifest removed, digests forged", func(t *testing.T, run string) string {
			forgeRecordedDigests(t, run, tasks)
			if err := os.Remove(filepath.Join(run, runfolder.ManifestFile)); err != nil {
				t.Fatal(err)
			}
			return run
		}, 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := filepath.Join(t.TempDir(), "again")
			if err := os.CopyFS(run, os.DirFS(out)); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(run, runfolder.LockFile))
			judged := tc.prepare(t, run)
			jout := filepath.Join(t.TempDir(), "judged")
			code, stdout, stderr := runCLI(t, dir, append([]string{"judge", "--tasks", dir, "--run", judged, "--out", jout, "--judge", "replay:" + grading, "--replay-other-model"}, tc.args...)...)
			if code != 0 {
				t.Fatalf("judge: exit %d\n%s\n%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, "re-executed") {
				t.Errorf("judge does not say the run is a re-execution:\n%s", stderr)
			}
			checkReplayedResults(t, jout, tasks, same.Path(), tc.sameResults)
			if t.Failed() {
				t.Logf("judge stderr:\n%s", stderr)
			}
		})
	}
}

// forgeRecordedDigests sets every task's claimed recorded result digest
// (clinsql.recorded_result_sha256) to the digest of its own result: a
// claim the judge must not take alone.
func forgeRecordedDigests(t *testing.T, run string, tasks []fixtures.Task) {
	t.Helper()
	for _, task := range tasks {
		dir := filepath.Join(run, task.Path())
		p := filepath.Join(dir, runfolder.ExecutionSummaryFile)
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		res, err := os.ReadFile(filepath.Join(dir, runfolder.ResultFile(task.ID)))
		if err != nil {
			continue
		}
		sum := sha256.Sum256(res)
		c, _ := doc["clinsql"].(map[string]any)
		if c == nil {
			t.Fatalf("%s: no clinsql section", p)
		}
		c["recorded_result_sha256"] = hex.EncodeToString(sum[:])
		b, _ = json.Marshal(doc)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkReplayedResults reads a judge output's ledger: every validation
// task has its SQL decisions replayed; results decisions are replayed for
// the task samePath only, and only when sameResults is 1; every other
// results leaf replay could decide is refused as other_result.
func checkReplayedResults(t *testing.T, jout string, tasks []fixtures.Task, samePath string, sameResults int) {
	t.Helper()
	lc, err := judgefmt.ReadLedger(filepath.Join(jout, judgefmt.LedgerFile))
	if err != nil {
		t.Fatal(err)
	}
	replayed := map[string]map[string]int{} // task -> tree/kind -> leaves
	for _, r := range lc.Last() {
		if r.Source != judgefmt.SourceReplay {
			continue
		}
		kind := string(r.Tree) + " " + r.Verdict.String()
		if r.ErrorKind == judge.ErrorKindOtherResult {
			kind = string(r.Tree) + " other_result"
		}
		if replayed[r.Task] == nil {
			replayed[r.Task] = map[string]int{}
		}
		replayed[r.Task][kind]++
	}
	decided := 0
	for _, task := range tasks {
		if task.Split != "validation" {
			continue // the grading records the validation split only
		}
		k := filepath.ToSlash(task.Path())
		got := replayed[k]
		if got[string(judgefmt.TreeSQL)+" pass"]+got[string(judgefmt.TreeSQL)+" fail"] == 0 {
			t.Errorf("%s: no SQL decision replayed: %v", k, got)
		}
		if got[string(judgefmt.TreeSQL)+" other_result"] > 0 {
			t.Errorf("%s: SQL decisions refused as another result's: %v", k, got)
		}
		resultsDecided := got[string(judgefmt.TreeResults)+" pass"] + got[string(judgefmt.TreeResults)+" fail"]
		if resultsDecided > 0 {
			decided++
			if task.Path() != samePath {
				t.Errorf("%s (other result): results decisions %v, want every one refused as other_result", k, got)
			}
		}
		if task.Path() != samePath && got[string(judgefmt.TreeResults)+" other_result"] == 0 {
			t.Errorf("%s (other result): results decisions %v, want every one refused as other_result", k, got)
		}
	}
	if decided != sameResults {
		t.Errorf("results decisions replayed for %d tasks, want %d", decided, sameResults)
	}
}

// TestExecReplayRun re-executes a recorded run on the fixture database and
// checks the run folder it writes can be judged.
func TestExecReplayRun(t *testing.T) {
	dir, grading := fixtureRun(t)
	db := buildMini(t)
	rec := writeRecordedRun(t, dir)
	out := filepath.Join(dir, "replayed")
	code, stdout, stderr := runCLI(t, dir, "exec", "--db", db, "--tasks", dir, "--run", rec, "--out", out, "--name", "again")
	if code != 0 || !strings.Contains(stdout, "again on duckdb: 4 tasks run, 0 already done; ok 4") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The manifest says what data the answers ran on: the 3-patient
	// fixture database, a sample, as db build recorded it.
	m, err := runfolder.ReadManifest(out)
	if err != nil || m == nil {
		t.Fatalf("manifest: %v", err)
	}
	if e := m.Engine; e.Name != "duckdb" || e.Patients != 3 || !e.Sample || e.Source != "mimic-iv" || len(e.SourceSHA256) != 64 {
		t.Errorf("manifest engine %+v, want duckdb with the database's facts (3 patients, a sample)", e)
	}
	jout := filepath.Join(dir, "judged")
	code, stdout, stderr = runCLI(t, dir, "judge", "--tasks", dir, "--run", out, "--out", jout, "--judge", "replay:"+grading, "--replay-other-model")
	if code != 0 || !strings.Contains(stdout, "validation: 3 tasks") {
		t.Fatalf("judge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The report flags the run: badge and caveat, from the manifest.
	code, stdout, stderr = runCLI(t, dir, "report", "--tasks", dir, "--judged", jout, "--out", filepath.Join(dir, "report"), "--resamples", "50")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "again (sample DB: duckdb, 3 patients)") ||
		!strings.Contains(stdout, "caveat: again ran on a sample database (duckdb, 3 patients, built from mimic-iv): its scores are not comparable with runs on BigQuery") {
		t.Errorf("report summary does not flag the sample database:\n%s", stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "report", "report.html")); !strings.Contains(string(b), `<span class="badge sample"`) {
		t.Error("report.html has no sample-database badge")
	}
}

// --zero-division auto follows the database: a division by zero fails as on
// BigQuery when the database holds (about) all of MIMIC-IV's patients, and a
// database without a patients table cannot be judged.
func TestZeroDivisionAuto(t *testing.T) {
	dir := t.TempDir()
	mk := func(name string, stmts ...string) string {
		path := filepath.Join(dir, name)
		db, err := sql.Open("duckdb", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		return path
	}
	full := mk("full.duckdb", "CREATE SCHEMA mimiciv_3_1_hosp",
		fmt.Sprintf("CREATE TABLE mimiciv_3_1_hosp.patients AS SELECT range AS subject_id FROM range(%d)", mimic.V31Patients))
	if code, _, errs := runCLI(t, "", "exec", "--db", full, "--sql", "SELECT 1 / 0 AS r"); code != 4 || !strings.Contains(errs, "division by zero: 1 / 0") {
		t.Errorf("full database: exit %d, %s", code, errs)
	}
	if code, out, errs := runCLI(t, "", "exec", "--db", full, "--zero-division", "null", "--sql", "SELECT 1 / 0 AS r"); code != 0 || out != "r\n\n" || !strings.Contains(errs, "warning") {
		t.Errorf("full database, null: exit %d, %q %s", code, out, errs)
	}
	other := mk("other.duckdb", "CREATE TABLE t (x INTEGER)")
	if code, _, errs := runCLI(t, "", "exec", "--db", other, "--sql", "SELECT 1"); code == 0 || !strings.Contains(errs, "--zero-division auto: counting patients") {
		t.Errorf("no patients table: exit %d, %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "exec", "--db", other, "--zero-division", "error", "--sql", "SELECT 1 AS x"); code != 0 {
		t.Errorf("no patients table, explicit mode: exit %d, %s", code, errs)
	}
}
