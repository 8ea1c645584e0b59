package bqsql_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/bqduck"
	"github.com/clinsql/clinsql/executor/bqsql"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/internal/shared"
)

// The acceptance figures run on the embedded engine as users get it: the
// MIMIC-IV demo built by executor/mimic (`clinsql db build`) and opened by
// executor/bqduck (this package's translator, settings, prelude and Go
// functions on executor/duckdb), as clinsql opens it. The database is built
// once per test process in a temporary folder.

var demo struct {
	once   sync.Once
	dir    string
	engine *bqduck.Engine
	build  time.Duration
	err    error
}

// queryTimeout bounds one replayed query, so a runaway cross join cannot
// stall the replay.
const queryTimeout = 30 * time.Second

func TestMain(m *testing.M) {
	// The engine's worker is this test binary started again.
	duckdb.ServeIfWorker()
	code := m.Run()
	if demo.engine != nil {
		demo.engine.Close()
	}
	if demo.dir != "" {
		os.RemoveAll(demo.dir)
	}
	os.Exit(code)
}

// demoEngine returns the process-wide engine over the demo database,
// skipping the test when ../shared is absent.
func demoEngine(tb testing.TB) *bqduck.Engine {
	tb.Helper()
	dir := shared.Path(tb, "mimic-iv-demo")
	demo.once.Do(func() { demo.err = openDemo(dir) })
	if demo.err != nil {
		tb.Fatalf("demo database: %v", demo.err)
	}
	return demo.engine
}

func openDemo(mimicDir string) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "bqsql-demo-")
	if err != nil {
		return err
	}
	demo.dir = tmp
	out := filepath.Join(tmp, "demo.duckdb")
	start := time.Now()
	if _, err := mimic.Build(ctx, mimic.BuildOptions{MimicDir: mimicDir, Out: out}); err != nil {
		return err
	}
	demo.build = time.Since(start)
	// As clinsql's default (--zero-division auto) on a sample: a division
	// by zero gives NULL with a warning; the benchmarks report both this
	// and BigQuery's strict outcome.
	eng, err := bqduck.Open(ctx, bqduck.Options{DB: out, Limits: executor.Limits{Timeout: queryTimeout, MaxRows: 10000}, Conns: 2, Threads: 1})
	if err != nil {
		return err
	}
	demo.engine = eng
	return nil
}

// runResult is the outcome of one query on the embedded engine.
type runResult struct {
	Err     error
	Class   executor.Class
	Rows    int64
	Elapsed time.Duration
	// Warned: the query ran only because a division by zero gave NULL
	// (RelaxDivision); BigQuery fails it on the same data.
	Warned bool
}

// stage names who decided the outcome.
func (r runResult) stage() string {
	switch {
	case r.Err == nil:
		return "ran"
	case errors.Is(r.Err, bqsql.ErrInvalid):
		return "rejected by translator"
	case errors.Is(r.Err, bqsql.ErrUnsupported):
		return "unsupported"
	}
	return string(r.Class)
}

// runQuery runs one BigQuery query on the engine.
func runQuery(ctx context.Context, eng *bqduck.Engine, sql string) runResult {
	start := time.Now()
	res, err := eng.Query(ctx, sql)
	out := runResult{Err: err, Elapsed: time.Since(start)}
	if err != nil {
		out.Class = executor.ClassOf(err)
		return out
	}
	out.Rows = res.TotalRows
	out.Warned = len(res.Warnings) > 0
	return out
}

func readFile(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
