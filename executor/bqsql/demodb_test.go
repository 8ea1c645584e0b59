package bqsql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clinsql/clinsql/executor"
	"github.com/clinsql/clinsql/executor/duckdb"
	"github.com/clinsql/clinsql/executor/mimic"
	"github.com/clinsql/clinsql/internal/shared"
)

// The acceptance figures run on the embedded engine as users get it: the
// MIMIC-IV demo built by executor/mimic (`clinsql db build`) and queried
// through executor/duckdb with this package's translator, settings and
// prelude (the wiring of internal/cli). The database is built once per test
// process in a temporary folder.

var demo struct {
	once   sync.Once
	dir    string
	engine *duckdb.Engine
	cat    Catalog
	build  time.Duration
	err    error
}

// functionsName names this package's Go functions to the engine's worker
// (duckdb.RegisterFunctions).
const functionsName = "bigquery"

// queryTimeout bounds one replayed query, so a runaway cross join cannot
// stall the replay.
const queryTimeout = 30 * time.Second

func TestMain(m *testing.M) {
	duckdb.RegisterFunctions(functionsName, RegisterFunctions)
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

// demoEngine returns the process-wide engine over the demo database and its
// catalog, skipping the test when ../shared is absent.
func demoEngine(tb testing.TB) (*duckdb.Engine, Catalog) {
	tb.Helper()
	dir := shared.Path(tb, "mimic-iv-demo")
	demo.once.Do(func() { demo.err = openDemo(dir) })
	if demo.err != nil {
		tb.Fatalf("demo database: %v", demo.err)
	}
	return demo.engine, demo.cat
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
	tr := &Translator{}
	eng, err := duckdb.Open(out, duckdb.Options{
		Limits:    executor.Limits{Timeout: queryTimeout, MaxRows: 10000},
		MaxConns:  2,
		Threads:   1,
		Translate: tr.TranslateCheckedContext,
		Settings:  Settings,
		Prelude:   Macros,
		Functions: []string{functionsName},
		Explain:   Explain,
		// As clinsql's default (--zero-division auto) on a sample: a
		// division by zero gives NULL with a warning; the benchmarks
		// report both this and BigQuery's strict outcome.
		Relax: RelaxDivision,
	})
	if err != nil {
		return err
	}
	demo.engine = eng
	cat, err := engineCatalog(ctx, eng)
	if err != nil {
		return err
	}
	tr.Catalog = cat
	demo.cat = cat
	return nil
}

// engineCatalog reads the catalog through the engine (one engine per file
// per process, so LoadCatalog's own connection is not available).
func engineCatalog(ctx context.Context, eng *duckdb.Engine) (Catalog, error) {
	res, err := eng.QueryNative(ctx, `SELECT table_schema, table_name, column_name, data_type
		FROM information_schema.columns
		WHERE table_schema IN ('mimiciv_3_1_hosp', 'mimiciv_3_1_icu', 'mimiciv_3_1_derived')`)
	if err != nil {
		return nil, fmt.Errorf("read catalog: %w", err)
	}
	cat := Catalog{}
	for _, r := range res.Rows {
		schema, table, column, typ := r[0].(string), r[1].(string), r[2].(string), r[3].(string)
		if cat[schema] == nil {
			cat[schema] = map[string]map[string]string{}
		}
		if cat[schema][table] == nil {
			cat[schema][table] = map[string]string{}
		}
		cat[schema][table][strings.ToLower(column)] = BigQueryType(typ)
	}
	return cat, nil
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
	case errors.Is(r.Err, ErrInvalid):
		return "rejected by translator"
	case errors.Is(r.Err, ErrUnsupported):
		return "unsupported"
	}
	return string(r.Class)
}

// runQuery runs one BigQuery query on the engine.
func runQuery(ctx context.Context, eng *duckdb.Engine, sql string) runResult {
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
