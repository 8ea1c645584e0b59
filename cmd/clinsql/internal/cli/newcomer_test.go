package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestNewcomerTrial is the loop a newcomer without an API key or a YAML
// file runs: generate with the built-in model (--model mock/demo), judge
// with it (--judge mock/demo), report. Every step exits 0 and the report
// shows the mock's SQL on the task pages.
func TestNewcomerTrial(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a DuckDB database")
	}
	db := buildMini(t)
	root := t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "runs")
	// A database not built yet: said how to build it, nothing written.
	code, stdout, stderr := runCLI(t, "", "generate", "--model", "mock/demo", "--tasks", root, "--db", db+".missing", "--out", out, "--quiet")
	if _, err := os.Stat(out); code != 1 || !strings.Contains(stderr, "clinsql db build --mimic") || !strings.Contains(stderr, "make demo") || err == nil {
		t.Errorf("missing database: exit %d, %q, out made: %v", code, stderr, err == nil)
	}
	code, stdout, stderr = runCLI(t, "", "generate", "--model", "mock/demo", "--tasks", root, "--db", db, "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("generate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	run := filepath.Join(out, "demo")
	code, stdout, stderr = runCLI(t, "", "judge", "--tasks", root, "--run", run, "--judge", "mock/demo")
	if code != 0 || !strings.Contains(stdout, "execution") {
		t.Fatalf("judge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	rep := filepath.Join(t.TempDir(), "report")
	code, stdout, stderr = runCLI(t, "", "report", "--tasks", root, "--run", run, "--out", rep, "--resamples", "20")
	if code != 0 {
		t.Fatalf("report: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// The task pages are compressed inside report.html: the model is
	// named there, and its SQL is in the run the report read.
	html, err := os.ReadFile(filepath.Join(rep, "report.html"))
	if err != nil || !strings.Contains(string(html), "demo") {
		t.Errorf("report.html lacks the model (%v)", err)
	}
	sqls, _ := filepath.Glob(filepath.Join(run, "*", "*", "*", "*", "sql_*.sql"))
	if len(sqls) != 4 {
		t.Errorf("the mock's run holds %d SQL files, want 4", len(sqls))
	}

	// The same loop in one command, with a subset that travels.
	trial := filepath.Join(t.TempDir(), "trial")
	code, stdout, stderr = runCLI(t, "", "run", "--model", "mock/demo", "--judge", "mock/demo", "--tasks", root, "--db", db,
		"--split", "validation", "--limit", "2", "--out", trial, "--quiet")
	if _, err := os.Stat(filepath.Join(trial, "report", "report.html")); code != 0 || err != nil || !strings.Contains(stdout, "== report (1 models)") {
		t.Fatalf("run: exit %d (%v)\n%s\n%s", code, err, stdout, stderr)
	}

	// What a newcomer gets wrong is answered with what to do.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--tasks", root, "--out", out}, "try --model mock/demo"},
		{[]string{"generate", "--model", "gpt-4o", "--tasks", root, "--out", out}, "want PROVIDER/NAME, e.g. openai/gpt-4o"},
		{[]string{"generate", "--model", "openai/gpt-4o", "--tasks", root, "--out", out}, "set OPENAI_API_KEY"},
		{[]string{"generate", "--model", "claude/x", "--tasks", root, "--out", out}, `provider "claude" is not openai, azure or mock`},
		{[]string{"judge", "--tasks", root, "--run", run}, "try --judge mock/demo"},
		{[]string{"run"}, "try --model mock/demo --judge mock/demo"},
		{[]string{"run", "--model", "mock/demo", "--tasks", root, "--out", out}, "--model needs --judge"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// A model id the endpoint does not know (HTTP 404, over the wire) stops
// the model and says the id is wrong, not only "run again to resume".
func TestWrongModelID(t *testing.T) {
	db := buildMini(t)
	root := t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.HTTPError(404, "model_not_found", "The model `gpt-4o-typo` does not exist")), llmtest.Options{APIKey: genKey})
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL(), "OPENAI_API_KEY": genKey}[k]
	}}
	code := run(context.Background(), env, []string{"generate", "--model", "openai/gpt-4o-typo", "--tasks", root, "--db", db, "--out", t.TempDir(), "--quiet"})
	all := stdout.String() + stderr.String()
	if code != exitIncomplete || !strings.Contains(all, "does not know this model id") || !strings.Contains(all, "gpt-4o-typo stopped") || !strings.Contains(all, "fix that, then") {
		t.Errorf("exit %d\n%s", code, all)
	}
}
