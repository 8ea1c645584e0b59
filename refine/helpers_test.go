package refine

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/internal/fixtures"
	"github.com/clinsql/clinsql/llm"
	"github.com/clinsql/clinsql/llm/llmfmt"
	"github.com/clinsql/clinsql/llm/llmtest"
)

var update = flag.Bool("update", false, "rewrite testdata golden files")

// miniDB is a DuckDB database built once per test binary from the
// synthetic MIMIC-shaped CSVs of package executor/mimic (no licensed data).
var (
	miniOnce sync.Once
	miniPath string
	miniErr  error
	miniDir  string
)

func TestMain(m *testing.M) {
	// The engine's worker is this test binary started again.
	duckdb.ServeIfWorker()
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	code := m.Run()
	if miniDir != "" {
		os.RemoveAll(miniDir)
	}
	os.Exit(code)
}

func buildMini() (string, error) {
	miniOnce.Do(func() {
		miniDir, miniErr = os.MkdirTemp("", "refine-mini-")
		if miniErr != nil {
			return
		}
		miniPath = filepath.Join(miniDir, "mini.duckdb")
		_, miniErr = mimic.Build(context.Background(), mimic.BuildOptions{MimicDir: "../executor/mimic/testdata/mini", Out: miniPath})
	})
	return miniPath, miniErr
}

// miniEngine opens the synthetic database read-only.
func miniEngine(t testing.TB) *duckdb.Engine {
	t.Helper()
	path, err := buildMini()
	if err != nil {
		t.Fatalf("build mini database: %v", err)
	}
	ex, err := duckdb.Open(path, duckdb.Options{Limits: executor.Limits{Timeout: 30 * time.Second}, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return ex
}

// fixtureTasks loads the generated ClinSQL-shaped tasks.
func fixtureTasks(t testing.TB) []*datasets.Task {
	t.Helper()
	root := t.TempDir()
	if _, err := fixtures.WriteClinSQL(root); err != nil {
		t.Fatal(err)
	}
	tasks, err := datasets.LoadClinSQL(root)
	if err != nil {
		t.Fatal(err)
	}
	return tasks
}

// syntheticTasks returns n tasks with distinct questions, built in Go (for
// runs bigger than the fixture).
func syntheticTasks(n int) []*datasets.Task {
	domains := []string{"Diagnostic_Procedures", "Laboratory_Results_Analysis", "Vital_Signs_Monitoring"}
	levels := []string{"easy", "medium", "hard"}
	var out []*datasets.Task
	for i := range n {
		out = append(out, &datasets.Task{
			Key:      datasets.Key{Split: "validation", Domain: domains[i%3], Difficulty: levels[(i/3)%3], ID: fmt.Sprintf("%03d", i+1)},
			Question: fmt.Sprintf("Question number %d: how many patients are there?", i+1),
		})
	}
	return out
}

// Queries that run on the synthetic database (and on the demo).
const (
	okSQL    = "SELECT gender, COUNT(*) AS n FROM mimiciv_3_1_hosp.patients GROUP BY gender ORDER BY gender"
	badSQL   = "SELECT gender, COUNT(*) AS n FROM mimiciv_3_1_hosp.patients GROUP BY gendr ORDER BY gender"
	emptySQL = "SELECT subject_id FROM mimiciv_3_1_hosp.patients WHERE anchor_age > 200"
)

func cot(sql string) string {
	return "Reasoning: count the patients per gender.\n\nSQL:\n```sql\n" + sql + "\n```\n"
}

// testKey is the API key given to every fake endpoint; the leak test looks
// for it in everything a run writes.
const testKey = "sk-clinsql-test-7f3a9c1e5b2d4f60a8e1c3b5d7f9a1b3"

func testModel(name string, srv *llmtest.Server) Model {
	t0 := 0.0
	return Model{Endpoint: llm.Endpoint{
		Name: name, Kind: llm.KindOpenAI, BaseURL: srv.OpenAIBaseURL(), Model: "fake-" + name, APIKeyEnv: "CLINSQL_TEST_KEY",
		Sampling: llmfmt.Sampling{Temperature: &t0, MaxTokens: 1024},
		Limits:   llm.Limits{Concurrency: 2, Timeout: 2 * time.Second},
		Retry:    llm.Retry{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 5 * time.Millisecond, Budget: 10 * time.Second},
	}}
}

func getenv(k string) string {
	if k == "CLINSQL_TEST_KEY" {
		return testKey
	}
	return ""
}

func noSleep(context.Context, time.Duration) error { return nil }

// solver returns a Solver for model m on the synthetic database.
// solver builds a Solver for m on ex; mods adjust the client's options.
func solver(t testing.TB, m Model, ex executor.Executor, mods ...func(*llm.Options)) *Solver {
	t.Helper()
	opts := llm.Options{Getenv: getenv, Sleep: noSleep}
	for _, mod := range mods {
		mod(&opts)
	}
	c, err := llm.New(m.Endpoint, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return &Solver{Model: m, LLM: c, Exec: ex, Prompter: NewPrompter(m.PromptOrDefault(), mimic.V31), Sleep: noSleep}
}

func intp(n int) *int { return &n }
