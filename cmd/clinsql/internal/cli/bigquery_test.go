package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/batch"
	"github.com/clinsql/clinsql/executor/bigquery"
	"github.com/clinsql/clinsql/internal/bqfake"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/runfolder"
)

// bqSetup starts a fake BigQuery and writes an engine configuration for it.
// extra is appended to the YAML.
func bqSetup(t *testing.T, extra string) (*bqfake.Server, string) {
	t.Helper()
	srv, err := bqfake.New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		for _, v := range srv.Violations() {
			t.Errorf("request the real API would reject: %s", v)
		}
	})
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bq.yaml")
	yaml := fmt.Sprintf("project: clinsql-cli-test\nendpoint: %s\ncredentials: none\nretry: {attempts: 3, initial: 1ms, max: 5ms, budget: 1s}\n%s", srv.Endpoint(), extra)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return srv, cfg
}

// goldTasks writes the fixture tasks and scripts the fake for their gold
// SQL: the first fails analysis, the others return a row and scan a known
// number of bytes.
func goldTasks(t *testing.T, srv *bqfake.Server) (root string, tasks []*datasets.Task) {
	t.Helper()
	root = t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	tasks, err := datasets.LoadClinSQL(root)
	if err != nil {
		t.Fatal(err)
	}
	for i, tk := range tasks {
		q := bqfake.Query{
			BytesProcessed:   int64(i+1) * 3 << 30,
			ReferencedTables: []string{"physionet-data.mimiciv_3_1_hosp.patients"},
			Schema:           []bqfake.Field{{Name: "value", Type: "FLOAT"}, {Name: "n", Type: "NUMERIC"}},
			Rows:             [][]any{{"1.5", "10.25"}},
		}
		if i == 0 {
			q = bqfake.Query{DryRunError: bqfake.InvalidQuery("Unrecognized name: hadm_idx at [3:10]")}
		}
		srv.Script(tk.GoldSQL, q)
	}
	return root, tasks
}

func TestExecBigQuerySQL(t *testing.T) {
	srv, cfg := bqSetup(t, "")
	srv.Script("SELECT gender, COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients` GROUP BY gender ORDER BY gender", bqfake.Query{
		BytesProcessed: 1 << 20,
		Schema:         []bqfake.Field{{Name: "gender", Type: "STRING"}, {Name: "n", Type: "INTEGER"}},
		Rows:           [][]any{{"F", "191984"}, {"M", "172643"}},
	})
	code, out, errs := runCLI(t, "", "exec", "--engine", "bigquery", "--bq-config", cfg, "--sql",
		"SELECT gender, COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients` GROUP BY gender ORDER BY gender")
	if code != 0 || out != "gender,n\nF,191984\nM,172643\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, out, errs)
	}
	// The file's limits apply unless exec's flags are given.
	job := lastJobInsert(t, srv)
	if got := bqfake.BodyAt(job.Body, "configuration", "jobTimeoutMs"); got != "310000" {
		t.Errorf("jobTimeoutMs %v with the file's default timeout", got)
	}
	srv.Script("SELECT 1", bqfake.Query{Schema: []bqfake.Field{{Name: "x", Type: "INTEGER"}}, Rows: [][]any{{"1"}}})
	if code, _, errs := runCLI(t, "", "exec", "--engine", "bigquery", "--bq-config", cfg, "--timeout", "20s", "--bq-max-bytes-billed", "1GiB", "--sql", "SELECT 1"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	job = lastJobInsert(t, srv)
	if got := bqfake.BodyAt(job.Body, "configuration", "jobTimeoutMs"); got != "30000" {
		t.Errorf("jobTimeoutMs %v, want --timeout 20s plus the grace", got)
	}
	if got := bqfake.BodyAt(job.Body, "configuration", "query", "maximumBytesBilled"); got != "1073741824" {
		t.Errorf("maximumBytesBilled %v, want --bq-max-bytes-billed", got)
	}

	srv.Script("SELECT nope", bqfake.Query{DryRunError: bqfake.InvalidQuery("Unrecognized name: nope at [1:8]")})
	code, _, errs = runCLI(t, "", "exec", "--engine", "bigquery", "--bq-config", cfg, "--sql", "SELECT nope")
	if code != 11 || !strings.Contains(errs, "syntax_error: Unrecognized name: nope at [1:8]") {
		t.Errorf("syntax error: exit %d, stderr %s", code, errs)
	}
}

func TestExecBigQueryGold(t *testing.T) {
	srv, cfg := bqSetup(t, "")
	root, tasks := goldTasks(t, srv)
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, errs := runCLI(t, "", "exec", "--engine", "bigquery", "--bq-config", cfg, "--tasks", root, "--gold", "--out", out, "--concurrency", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var sum batch.Summary
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(b, &sum)
	if sum.Engine != "bigquery" || sum.Total != len(tasks) || sum.Succeeded != len(tasks)-1 ||
		len(sum.Failures) != 1 || sum.Failures[0].Class != executor.ClassSyntax || sum.Failures[0].Task != tasks[0].Key.String() {
		t.Fatalf("summary %+v\n%s", sum, stdout)
	}
	// 6, 9 and 12 GiB billed for the three that ran.
	if !strings.Contains(errs, "bigquery: 4 queries, 3 jobs (0 from cache), 27 GiB processed, 27 GiB billed: $0.1648 at $6.25/TiB") {
		t.Errorf("run totals missing from stderr: %s", errs)
	}
	csv, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(tasks[1].Key.String()), "result_"+tasks[1].ID+".csv"))
	if err != nil || string(csv) != "value,n\n1.5,10.25\n" {
		t.Errorf("CSV %q %v", csv, err)
	}
}

func TestExecBigQueryDryRunGold(t *testing.T) {
	srv, cfg := bqSetup(t, "max_bytes_billed: 10GiB\n")
	root, _ := goldTasks(t, srv)
	out := t.TempDir()
	code, stdout, errs := runCLI(t, out, "exec", "--engine", "bigquery", "--bq-config", cfg, "--dry-run", "--tasks", root, "--gold", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "bigquery-dry-run-gold.stdout", stdout)
	if n := len(srv.Calls("jobs.get")) + len(srv.Calls("jobs.getQueryResults")); n != 0 {
		t.Errorf("a dry run polled %d times: something ran", n)
	}
	for _, r := range srv.Calls("jobs.insert") {
		if bqfake.BodyAt(r.Body, "configuration", "dryRun") != true {
			t.Fatal("a job ran during --dry-run")
		}
	}
	var rep bigquery.DryRunReport
	b, err := os.ReadFile(filepath.Join(out, "dry_run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	// Tasks 2..4 scan 6, 9 and 12 GiB; 12 GiB is over the 10 GiB cap.
	if rep.Queries != 4 || rep.Failed != 1 || rep.OverCap != 1 || rep.Billed != 15<<30 ||
		rep.CostUSD != 15.0/1024*6.25 || rep.RunCostMaxUSD != 3*rep.CostUSD {
		t.Errorf("report %+v", rep)
	}
}

func TestExecBigQueryDryRunModelRun(t *testing.T) {
	srv, cfg := bqSetup(t, "price_per_tib: 5\n")
	dir := t.TempDir()
	write := func(key, sql string, attempts int) {
		p := filepath.Join(dir, filepath.FromSlash(key))
		os.MkdirAll(p, 0o755)
		s := runfolder.ExecutionSummary{FinalSQL: sql, Model: "m", RefinementAttempts: make([]runfolder.Attempt, attempts)}
		b, _ := json.Marshal(s)
		os.WriteFile(filepath.Join(p, runfolder.ExecutionSummaryFile), b, 0o644)
	}
	write("validation/Diagnostic_Procedures/easy_level_queries/001", "SELECT a", 1)
	write("validation/Diagnostic_Procedures/easy_level_queries/002", "SELECT b", 3)
	write("validation/Diagnostic_Procedures/hard_level_queries/001", "", 0)
	srv.Script("SELECT a", bqfake.Query{BytesProcessed: 1 << 40})
	srv.Script("SELECT b", bqfake.Query{BytesProcessed: 2 << 40})
	code, stdout, errs := runCLI(t, "", "exec", "--engine", "bigquery", "--bq-config", cfg, "--bq-max-bytes-billed", "5TiB", "--dry-run", "--run", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	golden(t, "bigquery-dry-run-model.stdout", stdout)
	if !strings.Contains(errs, "1 tasks have no SQL") {
		t.Errorf("stderr %s", errs)
	}
}

func TestExecBigQueryDryRunSQL(t *testing.T) {
	srv, cfg := bqSetup(t, "")
	srv.Script("SELECT bad", bqfake.Query{DryRunError: bqfake.InvalidQuery("Syntax error: Unexpected end of script at [1:11]")})
	code, _, errs := runCLI(t, "", "exec", "--engine", "bigquery", "--bq-config", cfg, "--dry-run", "--sql", "SELECT bad")
	if code != 11 || !strings.Contains(errs, "Unexpected end of script") {
		t.Errorf("exit %d, stderr %s", code, errs)
	}
	srv.Script("DROP TABLE x", bqfake.Query{StatementType: "DROP_TABLE"})
	code, stdout, errs := runCLI(t, "", "exec", "--engine", "bigquery", "--bq-config", cfg, "--dry-run", "--sql", "DROP TABLE x")
	if code != 8 || !strings.Contains(stdout, "refused: a DROP_TABLE statement") {
		t.Errorf("exit %d, stdout %s, stderr %s", code, stdout, errs)
	}
}

func TestExecBigQueryUsage(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"exec", "--db", "x", "--dry-run", "--sql", "SELECT 1"}, 2, "--dry-run needs --engine bigquery"},
		{[]string{"exec", "--engine", "bigquery", "--run", "x"}, 2, "--run needs --tasks and --out (or --dry-run)"},
		{[]string{"exec", "--db", "x", "--tasks", "t", "--run", "x", "--gold", "--out", "o"}, 2, "give either --gold or --run, not both"},
		{[]string{"exec", "--engine", "bigquery", "--sql", "SELECT 1"}, 1, "default: project: required"},
		{[]string{"exec", "--engine", "bigquery", "--bq-config", "testdata/missing.yaml", "--sql", "SELECT 1"}, 1, "missing.yaml"},
		{[]string{"exec", "--engine", "bigquery", "--bq-project", "clinsql-cli-test", "--bq-timeout", "-1s", "--sql", "SELECT 1"}, 1, "flag --bq-timeout: timeout: must be positive"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(t, "", c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %s; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	_, _, errs := runCLI(t, "", "exec", "-h")
	for _, w := range []string{"-bq-config", "-dry-run", "bigquery, duckdb"} {
		if !strings.Contains(errs, w) {
			t.Errorf("help lacks %q", w)
		}
	}
}

// Nothing the command writes, to files or to the terminal, names the key
// file or carries its secrets or the tokens issued for it.
func TestExecBigQueryNoCredentialLeaks(t *testing.T) {
	srv, err := bqfake.New()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	key, err := srv.RequireServiceAccount("clinsql-cli-test")
	if err != nil {
		t.Fatal(err)
	}
	secretDir := filepath.Join(t.TempDir(), "keys-hush-9931")
	os.Mkdir(secretDir, 0o700)
	keyPath := filepath.Join(secretDir, "runner-key-5530.json")
	os.WriteFile(keyPath, key.JSON, 0o600)
	cfg := filepath.Join(t.TempDir(), "bq.yaml")
	// The timeout ends the hanging query (a cancel, whose reply could leak);
	// every other call must finish within it, on a loaded machine too.
	os.WriteFile(cfg, []byte(fmt.Sprintf("project: clinsql-cli-test\nendpoint: %s\ncredentials: key_file\nkey_file: %s\ntimeout: 3s\nretry: {attempts: 2, initial: 1ms, max: 2ms, budget: 1s}\n", srv.Endpoint(), keyPath)), 0o644)

	root, tasks := goldTasks(t, srv)
	// One gold query hangs (cancelled), one is rate limited, one echoes the
	// bearer token back in its error.
	srv.Script(tasks[1].GoldSQL, bqfake.Query{Hang: true, Schema: []bqfake.Field{{Name: "x", Type: "INTEGER"}}})
	srv.FailNext("jobs.insert/job", bqfake.RateLimited())
	srv.FailNext("jobs.insert/dryrun", bqfake.Fault{Code: 400, Reason: "invalidQuery", Message: "Syntax error", EchoAuth: true})

	out := t.TempDir()
	var terminal []string
	for _, args := range [][]string{
		{"exec", "--engine", "bigquery", "--bq-config", cfg, "--tasks", root, "--gold", "--out", filepath.Join(out, "gold")},
		{"exec", "--engine", "bigquery", "--bq-config", cfg, "--dry-run", "--tasks", root, "--gold", "--out", filepath.Join(out, "dry")},
		{"exec", "--engine", "bigquery", "--bq-config", cfg, "--sql", tasks[2].GoldSQL},
		{"exec", "--engine", "bigquery", "--bq-config", cfg, "--bq-key-file", keyPath + ".missing", "--sql", "SELECT 1"},
	} {
		code, stdout, stderr := runCLI(t, "", args...)
		terminal = append(terminal, stdout, stderr)
		if code == 2 {
			t.Fatalf("%v: usage error: %s", args, stderr)
		}
	}
	if len(srv.IssuedTokens()) == 0 || len(srv.Calls("jobs.cancel")) == 0 {
		t.Fatalf("tokens %d, cancels %d: the scenario did not run", len(srv.IssuedTokens()), len(srv.Calls("jobs.cancel")))
	}
	var written []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			written = append(written, p+":\n"+string(b))
		}
		return nil
	})
	if len(written) < 3 {
		t.Fatalf("only %d files written", len(written))
	}
	pem := strings.Split(strings.TrimSpace(key.PrivateKey), "\n")
	secrets := append([]string{keyPath, "keys-hush-9931", "runner-key-5530", key.PrivateKeyID, pem[1], pem[len(pem)-2]}, srv.IssuedTokens()...)
	all := strings.Join(append(terminal, written...), "\n")
	for _, s := range secrets {
		if i := strings.Index(all, s); i >= 0 {
			t.Errorf("secret %q leaked: ...%s...", s, all[max(0, i-100):min(len(all), i+len(s)+20)])
		}
	}
	if !strings.Contains(all, "[redacted]") {
		t.Error("the echoed token was not seen redacted: the hostile reply did not reach the output")
	}
}

func lastJobInsert(t *testing.T, srv *bqfake.Server) bqfake.Request {
	t.Helper()
	calls := srv.Calls("jobs.insert")
	for i := len(calls) - 1; i >= 0; i-- {
		if bqfake.BodyAt(calls[i].Body, "configuration", "dryRun") != true {
			return calls[i]
		}
	}
	t.Fatal("no job inserted")
	return bqfake.Request{}
}
