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
	db, root := miniLoop(t)
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

	// What a newcomer gets wrong is answered with what to do (more in
	// TestNewcomerMistakes).
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"generate", "--tasks", root, "--out", out}, "try --model mock/demo"},
		{[]string{"generate", "--model", "claude/x", "--tasks", root, "--out", out}, `provider "claude" is not openai, azure or mock`},
		{[]string{"run"}, "try --model mock/demo --judge mock/demo"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestNewcomerMistakes pins the newcomer trial (issue 29): twenty mistakes
// a newcomer makes with the README's commands, each run through the
// command line on the project's fixtures, and the part of its message
// that says what to do. Run against the real binary on the demo data,
// 15 of these 20 said what to do before (no ../shared, the folder above a
// run, --limit beyond a run's subset, an EHRSQL prediction path under the
// split's typed name, EHRSQL's --model did not), all 20 after. The HTTP
// 404 goes over the wire to a fake endpoint.
func TestNewcomerMistakes(t *testing.T) {
	db, root := miniLoop(t)
	work := t.TempDir()
	at := func(p string) string { return filepath.Join(work, p) }
	// A judged run of 2 tasks and an unjudged one, as the README's loop
	// leaves them.
	for _, step := range [][]string{
		{"generate", "--model", "mock/demo", "--tasks", root, "--db", db, "--split", "validation", "--limit", "2", "--out", at("runs"), "--quiet"},
		{"judge", "--tasks", root, "--run", at("runs/demo"), "--judge", "mock/demo"},
		{"generate", "--model", "mock/demo", "--tasks", root, "--db", db, "--split", "validation", "--limit", "2", "--out", at("unjudged"), "--quiet"},
	} {
		if code, stdout, stderr := runCLI(t, "", step...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", step, code, stdout, stderr)
		}
	}
	other := at("eval/gpt-4.1/validation/detailed_grading.json")
	if err := os.MkdirAll(filepath.Dir(other), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fixtures.WriteGrading(other, "gpt-4.1", "validation", func(fixtures.Task, string, bool) (fixtures.Decision, bool) {
		return fixtures.Decision{Score: 1, Explanation: "recorded"}, true
	}); err != nil {
		t.Fatal(err)
	}
	typo := at("models.yaml")
	if err := os.WriteFile(typo, []byte("models:\n  - name: gpt-4o\n    kind: openai\n    model: gpt-4o\n    api_key_en: OPENAI_API_KEY\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ehr := ehrsqlDataDir(t)
	if code, stdout, stderr := runCLI(t, "", "generate", "--benchmark", "ehrsql", "--tasks", ehr, "--split", "mini", "--model", "mock/demo", "--out", at("ehrsql"), "--quiet"); code != 0 {
		t.Fatalf("ehrsql mock run: exit %d\n%s%s", code, stdout, stderr)
	}
	pred := at("ehrsql/demo/mini/model/prediction.json")
	srv := llmtest.Start(t, llmtest.Fixed(llmtest.HTTPError(404, "model_not_found", "The model `gpt-4o-typo` does not exist")), llmtest.Options{APIKey: genKey})
	endpoint404 := map[string]string{"OPENAI_BASE_URL": srv.OpenAIBaseURL(), "OPENAI_API_KEY": genKey}
	gen := []string{"generate", "--model", "mock/demo", "--tasks", root, "--db", db, "--split", "validation", "--limit", "2", "--out", at("runs2"), "--quiet"}
	with := func(args []string, i int, value string) []string {
		out := append([]string(nil), args...)
		out[i] = value
		return out
	}

	for i, tc := range []struct {
		mistake string
		vars    map[string]string
		args    []string
		code    int
		says    []string // the part that says what to do
	}{
		{"flag misspelt", nil, with(gen, 1, "--modle"), 2, []string{"unknown flag --modle (did you mean --model?)"}},
		{"command misspelt", nil, with(gen, 0, "genrate"), 2, []string{`unknown command "genrate" (did you mean "generate"?)`}},
		{"no ../shared beside the checkout", nil, with(gen, 4, filepath.Join(work, "shared", "clinsql-data")), 1,
			[]string{"no such folder or manifest: download the public ClinSQL release with clinsql datasets fetch clinsql --out DIR"}},
		{"EHRSQL's split name for ClinSQL", nil, with(gen, 8, "valid"), 1, []string{"--split valid: no such split in --tasks (have: test, validation)"}},
		{"database not built yet", nil, with(gen, 6, at("out/demo/mimic-iv-demo.duckdb")), 1, []string{"build it with clinsql db build --mimic MIMIC_DIR"}},
		{"models file with a typo'd key", nil, append([]string{"generate", "--models", typo}, gen[3:]...), 1,
			[]string{`api_key_en: unknown key "api_key_en"; allowed here: api_key_env`}},
		{"API key variable not set", nil, with(gen, 2, "openai/gpt-4o"), 2, []string{"set OPENAI_API_KEY to your API key"}},
		{"model id the endpoint does not know (HTTP 404)", endpoint404, with(gen, 2, "openai/gpt-4o-typo"), exitIncomplete,
			[]string{"the endpoint does not know this model id", "check the model's id", "gpt-4o-typo stopped", "fix that, then run the same command again"}},
		{"model without its provider", nil, with(gen, 2, "gpt-4o"), 2, []string{"want PROVIDER/NAME, e.g. openai/gpt-4o"}},
		{"judge without a judge", nil, []string{"judge", "--tasks", root, "--run", at("runs/demo")}, 2, []string{"try --judge mock/demo"}},
		{"judge --run the generate --out, not the model's run", nil, []string{"judge", "--tasks", root, "--run", at("runs"), "--judge", "mock/demo"}, 1,
			[]string{"holds the runs of models (demo), not a run itself: name one of them, e.g. " + at("runs/demo")}},
		{"report before judge", nil, []string{"report", "--tasks", root, "--run", at("unjudged/demo"), "--out", at("rep1")}, 1,
			[]string{"judge it first (clinsql judge)"}},
		{"report --limit more than the run holds", nil, []string{"report", "--tasks", root, "--run", at("runs/demo"), "--limit", "10", "--out", at("rep2"), "--resamples", "20"}, 0,
			[]string{"note: --limit 10, but only 2 tasks remain", "generate them into its --out (generate ... --limit 10), then judge it again"}},
		{"replay another model's decisions", nil, []string{"judge", "--tasks", root, "--run", at("runs/demo"), "--judge", "replay:" + other, "--out", at("j2")}, 1,
			[]string{`the recorded decisions are about model "gpt-4.1", but --run`, "pass --replay-other-model to do it on purpose"}},
		{"run --model without --judge", nil, []string{"run", "--model", "mock/demo", "--tasks", root, "--db", db, "--out", at("trial")}, 2, []string{"--model needs --judge"}},
		{"db build again without --force", nil, []string{"db", "build", "--mimic", miniMIMIC, "--out", db}, 1, []string{"already exists (use --force to replace it)"}},
		{"EHRSQL old spellings", nil, []string{"ehrsql", "score", "--data-dir", ehr, "--split", "mini", "--pred", pred}, 0,
			[]string{"--data-dir is deprecated; use --tasks", "--pred is deprecated; use --run"}},
		{"EHRSQL split not in the data (the README's old test)", nil, []string{"generate", "--benchmark", "ehrsql", "--tasks", ehr, "--split", "test", "--model", "mock/demo", "--out", at("ehr2")}, 1,
			[]string{`no split "test" in ` + ehr + " (have: mini)"}},
		{"EHRSQL predictions path typed with another split name", nil, []string{"ehrsql", "score", "--tasks", ehr, "--split", "mini", "--run", at("ehrsql/demo/validation/model")}, 1,
			[]string{"prediction files under " + at("ehrsql/demo") + ": [" + pred + "]"}},
		{"EHRSQL one model without YAML, as ClinSQL", nil, []string{"generate", "--benchmark", "ehrsql", "--tasks", ehr, "--split", "mini", "--model", "mock/demo", "--out", at("ehr3"), "--quiet"}, 0,
			[]string{"demo"}},
	} {
		var stdout, stderr bytes.Buffer
		env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return tc.vars[k] }}
		code := run(context.Background(), env, tc.args)
		all := stdout.String() + stderr.String()
		for _, want := range tc.says {
			if code != tc.code || !strings.Contains(all, want) {
				t.Errorf("%d. %s: %v\nexit %d, want %d and %q in:\n%s", i+1, tc.mistake, tc.args, code, tc.code, want, all)
			}
		}
	}
}

// miniLoop is what a test of the generate -> judge -> report loop starts
// from: the mini DuckDB database and the fixture tasks (skipped with
// -short: the database is built).
func miniLoop(t *testing.T) (db, root string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a DuckDB database")
	}
	db = buildMini(t)
	root = t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	return db, root
}
