package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/llm/llmtest"
	"github.com/clinsql/clinsql/refine/refinefmt"
	"github.com/clinsql/clinsql/runfolder"
)

const genKey = "sk-generate-cli-test-0123456789abcdef"

// runWithKey runs the command line with the test key in the environment.
func runGen(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "GEN_TEST_KEY" {
			return genKey
		}
		return ""
	}}
	code := run(context.Background(), env, args)
	return code, out.String(), errb.String()
}

func writeModels(t *testing.T, dir string, urls map[string]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("models:\n")
	for _, name := range []string{"alpha", "beta"} {
		if urls[name] == "" {
			continue
		}
		b.WriteString("  - name: " + name + "\n    kind: openai\n    base_url: " + urls[name] +
			"\n    model: fake-" + name + "\n    api_key_env: GEN_TEST_KEY\n    sampling: {temperature: 0, max_tokens: 512}\n" +
			"    limits: {concurrency: 2, timeout: 10m}\n    retry: {max_attempts: 2, base_delay: 1ms, max_delay: 2ms}\n")
		if name == "beta" {
			b.WriteString("    prompt: schema-hinted\n    history: true\n")
		}
	}
	path := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGenerateCommand(t *testing.T) {
	db := buildMini(t)
	dir := t.TempDir()
	tasksDir := filepath.Join(dir, "data")
	if _, err := fixtures.WriteClinSQL(tasksDir); err != nil {
		t.Fatal(err)
	}
	sql := "SELECT gender, COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients` GROUP BY gender ORDER BY gender"
	reply := llmtest.Text("Reasoning: count per gender.\n```sql\n" + sql + "\n```")
	bad := llmtest.Text("```sql\nSELECT gendr FROM `physionet-data.mimiciv_3_1_hosp.patients`\n```")
	alpha := llmtest.Start(t, llmtest.Fixed(reply), llmtest.Options{APIKey: genKey})
	beta := llmtest.Start(t, llmtest.Then(llmtest.Fixed(reply), bad), llmtest.Options{APIKey: genKey})
	models := writeModels(t, dir, map[string]string{"alpha": alpha.OpenAIBaseURL(), "beta": beta.OpenAIBaseURL()})
	out := filepath.Join(dir, "out")
	args := []string{"generate", "--models", models, "--tasks", tasksDir, "--split", "validation", "--db", db, "--out", out, "--concurrency", "3"}

	code, stdout, stderr := runGen(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if strings.ContainsAny(stderr, "\r\x1b") {
		t.Errorf("progress wrote control characters to a non-terminal: %q", stderr)
	}
	for _, want := range []string{"alpha", "beta", "100.0%"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "generate 6/6 (100%)") {
		t.Errorf("no final progress line:\n%s", stderr)
	}
	for _, m := range []string{"alpha", "beta"} {
		outs, err := runfolder.LoadOutputs(filepath.Join(out, m))
		if err != nil || len(outs) != 3 {
			t.Fatalf("%s: %d outputs, %v", m, len(outs), err)
		}
		if _, err := os.Stat(filepath.Join(out, m, runfolder.BenchmarkSummaryFile)); err != nil {
			t.Error(err)
		}
	}
	sum, _, _ := refinefmt.ReadSummary(filepath.Join(out, "beta"), datasets.Key{Split: "validation", Domain: "Diagnostic_Procedures", Difficulty: "easy", ID: "001"})
	if sum == nil || len(sum.RefinementAttempts) != 2 && len(sum.RefinementAttempts) != 1 {
		t.Errorf("beta summary %+v", sum)
	}

	// Again: everything is resumed, no call is made.
	calls := alpha.Calls() + beta.Calls()
	code, stdout, stderr = runGen(t, args...)
	if code != 0 || alpha.Calls()+beta.Calls() != calls || !strings.Contains(stderr, "resumed 6") {
		t.Errorf("resume: exit %d, %d new calls\n%s", code, alpha.Calls()+beta.Calls()-calls, stderr)
	}

	// An endpoint that refuses the key leaves tasks pending: exit 3.
	gamma := llmtest.Start(t, llmtest.Fixed(llmtest.HTTPError(401, "invalid_api_key", "bad key")), llmtest.Options{})
	models2 := writeModels(t, t.TempDir(), map[string]string{"alpha": gamma.OpenAIBaseURL()})
	code, stdout, stderr = runGen(t, "generate", "--models", models2, "--tasks", tasksDir, "--db", db, "--out", filepath.Join(dir, "out2"), "--quiet")
	if code != 3 || !strings.Contains(stderr, "pending") || !strings.Contains(stdout, "stopped after auth") {
		t.Errorf("auth failure: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// The key is in no file the runs wrote, logs and cache included.
	t.Logf("%d files checked for the API key", llmtest.AssertNoSecret(t, dir, genKey))
	if _, err := os.Stat(filepath.Join(out, "generate.log")); err != nil {
		t.Error(err)
	}
}

func TestGenerateUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"generate"}, "try --model mock/demo"},
		{[]string{"generate", "--models", "m", "--tasks", "t", "--out", "o", "--budget", "5"}, "--budget needs --prices"},
		{[]string{"generate", "--models", filepath.Join(dir, "missing.yaml"), "--tasks", "t", "--out", "o"}, "missing.yaml"},
	} {
		code, _, stderr := runGen(t, tc.args...)
		if code == 0 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr)
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("models:\n  - name: a/b\n    kind: openai\n    model: m\n    prompt: clever\n    rounds: 99\n"), 0o644)
	code, _, stderr := runGen(t, "generate", "--models", bad, "--tasks", "t", "--out", "o")
	for _, want := range []string{"bad.yaml: models[0].name", "bad.yaml: models[0].prompt", "bad.yaml: models[0].rounds"} {
		if code != 1 || !strings.Contains(stderr, want) {
			t.Errorf("bad models file: exit %d, stderr lacks %q:\n%s", code, want, stderr)
		}
	}
}

// TestGenerateOnBigQuery runs generation on the BigQuery engine (the fake
// REST API): a model that always answers the gold query gets the fake's
// outcome for it, the analysis error of the first task fed back for a fix
// until the rounds are used up.
func TestGenerateOnBigQuery(t *testing.T) {
	srv, cfg := bqSetup(t, "")
	root, tasks := goldTasks(t, srv)
	gold := map[string]string{}
	for _, tk := range tasks {
		gold[tk.Question] = tk.GoldSQL
	}
	model := llmtest.Start(t, func(c *llmtest.Call) llmtest.Reply {
		for q, sql := range gold {
			if strings.Contains(c.LastUser(), q) {
				return llmtest.Text("```sql\n" + sql + "\n```")
			}
		}
		return llmtest.Text("no idea")
	}, llmtest.Options{APIKey: genKey})
	dir := t.TempDir()
	models := writeModels(t, dir, map[string]string{"alpha": model.OpenAIBaseURL()})
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runGen(t, "generate", "--models", models, "--tasks", root, "--engine", "bigquery", "--bq-config", cfg, "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	outs, err := runfolder.LoadOutputs(filepath.Join(out, "alpha"))
	if err != nil || len(outs) != len(tasks) {
		t.Fatalf("%d outputs, %v", len(outs), err)
	}
	ok := 0
	for _, o := range outs {
		if o.Summary.ExecutionSuccess {
			ok++
			continue
		}
		// The first task's SQL fails analysis every time: three attempts, the
		// model's error (syntax) with BigQuery's message.
		if n := len(o.Summary.RefinementAttempts); n != 3 || o.Summary.FinalError == nil || !strings.Contains(*o.Summary.FinalError, "Unrecognized name: hadm_idx") {
			t.Errorf("%s: %d attempts, error %v", o.Key, n, o.Summary.FinalError)
		}
	}
	if ok != len(tasks)-1 {
		t.Errorf("%d tasks ran, want %d", ok, len(tasks)-1)
	}
}

// TestGenerateLogNotFollowed: a generate.log in the output folder that is
// a link to a file elsewhere (or a FIFO) is refused by name, never written
// through or waited on.
func TestGenerateLogNotFollowed(t *testing.T) {
	dir := t.TempDir()
	tasksDir := filepath.Join(dir, "data")
	if _, err := fixtures.WriteClinSQL(tasksDir); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.Text("```sql\nSELECT 1\n```")), llmtest.Options{APIKey: genKey})
	models := writeModels(t, dir, map[string]string{"alpha": srv.OpenAIBaseURL()})
	outside := filepath.Join(dir, "elsewhere.log")
	if err := os.WriteFile(outside, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// The database file must exist (generate checks that first); the
	// log is refused before anything opens it.
	db := filepath.Join(dir, "none.duckdb")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, plant := range map[string]func(string) error{
		"symlink": func(p string) error { return os.Symlink(outside, p) },
		"fifo":    func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		out := filepath.Join(dir, "out-"+name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := plant(filepath.Join(out, "generate.log")); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := runGen(t, "generate", "--models", models, "--tasks", tasksDir, "--db", db, "--out", out, "--quiet")
		if code == 0 || !strings.Contains(stderr, filepath.Join(out, "generate.log")) || !strings.Contains(stderr, "not a regular file") {
			t.Errorf("%s generate.log: exit %d\n%s", name, code, stderr)
		}
	}
	if b, _ := os.ReadFile(outside); len(b) != 0 || srv.Calls() != 0 {
		t.Errorf("wrote %q outside the folder, made %d calls", b, srv.Calls())
	}
}
