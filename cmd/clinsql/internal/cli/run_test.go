package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/llm/llmtest"
)

// TestRunBenchmark takes a benchmark config through generate, judge and
// report, then runs it again (everything resumed, no model or judge call),
// then with a third model whose endpoint refuses the key (exit 3, that
// model neither judged nor reported, the others still are).
func TestRunBenchmark(t *testing.T) {
	db := buildMini(t)
	dir := t.TempDir()
	if _, err := fixtures.WriteClinSQL(filepath.Join(dir, "data")); err != nil {
		t.Fatal(err)
	}
	sql := "SELECT gender, COUNT(*) AS n FROM `physionet-data.mimiciv_3_1_hosp.patients` GROUP BY gender ORDER BY gender"
	reply := llmtest.Text("Reasoning: count.\n```sql\n" + sql + "\n```")
	alpha := llmtest.Start(t, llmtest.Fixed(reply), llmtest.Options{APIKey: genKey})
	beta := llmtest.Start(t, llmtest.Fixed(reply), llmtest.Options{APIKey: genKey})
	judgeSrv := llmtest.Start(t, fakeJudge(func(req string) string {
		if strings.Contains(req, "percentile") {
			return "fail"
		}
		return "pass"
	}), llmtest.Options{APIKey: genKey})
	writeModels(t, dir, map[string]string{"alpha": alpha.OpenAIBaseURL(), "beta": beta.OpenAIBaseURL()})
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("judge.yaml", "endpoint:\n  name: judge\n  kind: openai\n  base_url: "+judgeSrv.OpenAIBaseURL()+
		"\n  model: fake-judge\n  api_key_env: GEN_TEST_KEY\n  sampling: {temperature: 0, max_tokens: 300}\n"+
		"  capabilities: {json_schema: true}\n  limits: {concurrency: 4}\n")
	write("bench.yaml", "models: models.yaml\ntasks: data\nsplit: validation\nengine: {name: duckdb, db: "+db+
		"}\nout: out\njudge: judge.yaml\nconcurrency: 4\n")

	code, stdout, stderr := runGen(t, "run", "--config", filepath.Join(dir, "bench.yaml"), "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, f := range []string{"out/alpha/benchmark_summary.json", "out/alpha/judge/detailed_grading.json", "out/beta/judge/judge_summary.json",
		"out/report/leaderboard.md", "out/report/report.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	lb, _ := os.ReadFile(filepath.Join(dir, "out/report/leaderboard.md"))
	if !strings.Contains(string(lb), "alpha") || !strings.Contains(string(lb), "beta") {
		t.Errorf("leaderboard lacks a model:\n%s", lb)
	}
	if judgeSrv.Calls() == 0 {
		t.Error("the judge was never asked")
	}

	// Again: nothing is asked of any model or of the judge.
	calls := alpha.Calls() + beta.Calls() + judgeSrv.Calls()
	code, stdout, stderr = runGen(t, "run", "--config", filepath.Join(dir, "bench.yaml"), "--quiet")
	if code != 0 || alpha.Calls()+beta.Calls()+judgeSrv.Calls() != calls {
		t.Errorf("second run: exit %d, %d new calls\n%s\n%s", code, alpha.Calls()+beta.Calls()+judgeSrv.Calls()-calls, stdout, stderr)
	}

	// A model that cannot finish is not judged; the others are reported.
	gamma := llmtest.Start(t, llmtest.Fixed(llmtest.HTTPError(401, "invalid_api_key", "bad key")), llmtest.Options{})
	models := "models:\n  - {name: alpha, kind: openai, base_url: " + alpha.OpenAIBaseURL() + ", model: fake-alpha, api_key_env: GEN_TEST_KEY," +
		" sampling: {temperature: 0, max_tokens: 512}, limits: {concurrency: 2, timeout: 10m}, retry: {max_attempts: 2, base_delay: 1ms, max_delay: 2ms}}\n" +
		"  - {name: gamma, kind: openai, base_url: " + gamma.OpenAIBaseURL() + ", model: fake-gamma, api_key_env: GEN_TEST_KEY}\n"
	write("models.yaml", models)
	code, stdout, stderr = runGen(t, "run", "--config", filepath.Join(dir, "bench.yaml"), "--quiet")
	if code != 3 || !strings.Contains(stderr, "gamma: 3 tasks not generated yet, not judged") || !strings.Contains(stdout, "== report (1 models)") {
		t.Errorf("with a failing model: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out/gamma/judge")); err == nil {
		t.Error("the failing model was judged")
	}
	t.Logf("%d files checked for the API key", llmtest.AssertNoSecret(t, dir, genKey))
}

func TestBenchConfigErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "models.yaml"), []byte("models:\n  - {name: a, kind: openai, model: m}\n"), 0o644)
	for _, tc := range []struct{ yaml, want string }{
		{"tasks: t\nout: o\n", "bench.yaml: models: is required"},
		{"models: models.yaml\ntasks: t\nout: o\nengine: {name: oracle}\n", "bench.yaml: engine.name: \"oracle\" is not an engine"},
		{"models: models.yaml\ntasks: t\nout: o\nengine: {zero_division: sometimes}\n", "bench.yaml: engine.zero_division: must be auto, error or null"},
		{"models: models.yaml\ntasks: t\nout: o\nbudget_usd: 3\n", "bench.yaml: budget_usd: needs prices"},
		{"models: models.yaml\ntasks: t\nout: o\nlimt: 3\n", `bench.yaml:4: limt: unknown key "limt"; allowed here: budget_usd, cache, concurrency, difficulty, domain, engine,`},
		{"models: missing.yaml\ntasks: t\nout: o\n", "missing.yaml"},
	} {
		path := filepath.Join(dir, "bench.yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o644)
		code, _, stderr := runGen(t, "run", "--config", path)
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q", tc.yaml, code, stderr)
		}
	}
}
