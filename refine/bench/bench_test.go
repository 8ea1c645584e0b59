package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "models.yaml"), []byte("models:\n  - {name: a, kind: openai, model: m}\n"), 0o644)
	for _, tc := range []struct{ yaml, want string }{
		{"tasks: t\nout: o\n", "bench.yaml: models: is required"},
		{"models: models.yaml\ntasks: t\nout: o\nengine: {name: oracle}\n", "bench.yaml: engine.name: \"oracle\" is not an engine (available: bigquery, duckdb)"},
		{"models: models.yaml\ntasks: t\nout: o\nengine: {name: bigquery}\n", "bench.yaml: engine.bq_config: is required for the bigquery engine"},
		{"models: models.yaml\ntasks: t\nout: o\nengine: {zero_division: sometimes}\n", "bench.yaml: engine.zero_division: must be auto, error or null"},
		{"models: models.yaml\ntasks: t\nout: o\nengine: {threads: -1}\n", "bench.yaml: engine.threads: must not be negative"},
		{"models: models.yaml\ntasks: t\nout: o\nbudget_usd: 3\n", "bench.yaml: budget_usd: needs prices"},
		{"models: models.yaml\ntasks: t\nout: o\nlimit: -1\n", "bench.yaml: limit: must not be negative"},
		{"models: models.yaml\ntasks: t\nout: o\ndifficulty: trivial\n", `bench.yaml: difficulty: must be easy, medium or hard, not "trivial"`},
		{"models: models.yaml\ntasks: t\nout: o\nretries: 3\n", `bench.yaml:4: retries: unknown key "retries"; allowed here: budget_usd, cache, concurrency, difficulty, domain, engine, judge, limit, models, out, prices, report, split, task, tasks`},
		{"models: missing.yaml\ntasks: t\nout: o\n", "missing.yaml"},
	} {
		path := filepath.Join(dir, "bench.yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o644)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.yaml, err, tc.want)
		}
	}
}

func TestLoadResolvesPaths(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "models.yaml"), []byte("models:\n  - {name: a, kind: openai, model: m}\n"), 0o644)
	path := filepath.Join(dir, "bench.yaml")
	os.WriteFile(path, []byte("models: models.yaml\ntasks: t\nout: o\njudge: replay:g.json\nengine: {name: bigquery, bq_config: bq.yaml, timeout: 9s}\n"), 0o644)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Tasks != filepath.Join(dir, "t") || c.Cache != filepath.Join(dir, "o", "llm-cache") || c.Report != filepath.Join(dir, "o", "report") ||
		len(c.LoadedModels) != 1 || c.Concurrency <= 0 {
		t.Errorf("config %+v", c)
	}
	// A replay's file is relative to the config; the setting is not a path.
	if got, want := c.JudgeSpec(), "replay:"+filepath.Join(dir, "g.json"); got != want {
		t.Errorf("judge %q, want %q", got, want)
	}
	e := c.EngineConfig()
	if e.Limits.Timeout.Seconds() != 9 || e.BigQuery == nil || e.BigQuery.ConfigPath != filepath.Join(dir, "bq.yaml") {
		t.Errorf("engine %+v", e)
	}
}
