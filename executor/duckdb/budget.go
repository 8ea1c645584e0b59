package duckdb

import (
	"context"
	"database/sql/driver"
	"strconv"
	"sync"

	duck "github.com/duckdb/duckdb-go/v2"

	"github.com/clinsql/clinsql/executor"
)

// The driver (duckdb-go) materialises a query's whole result inside DuckDB
// before the first row reaches Go, outside DuckDB's memory limit: 3,000 rows
// of 1 MB each took 3 GB there, whatever the Go side kept. So the result
// caps are enforced inside the query. The engine runs
//
//	SELECT * FROM (SELECT * FROM (<query>) LIMIT <max>) WHERE clinsql_keep(*COLUMNS(*))
//
// where clinsql_keep is a Go function that counts every row and keeps the
// rows within the row and byte caps (executor.Keeper), so DuckDB's result
// holds only the kept rows while the true row count is still known. The inner
// LIMIT (of every possible row) stops DuckDB from pushing the filter below an
// ORDER BY, which would keep rows other than the first. The filter sees the
// rows in result order only on one thread: with more threads (Options.Threads
// above 1) the query runs unwrapped and only the Go side caps the rows kept.

// keepFunc is the name of the filter function.
const keepFunc = "clinsql_keep"

// budget is one query's caps, shared by the filter's calls.
type budget struct {
	mu    sync.Mutex
	keep  *executor.Keeper
	total int64
}

// budgetKey carries a query's *budget in its context: the driver hands the
// function the context of the query that calls it.
type budgetKey struct{}

// keepUDF is clinsql_keep(ANY...) -> BOOLEAN.
type keepUDF struct{}

func (keepUDF) Config() duck.ScalarFuncConfig {
	anyType, _ := duck.NewTypeInfo(duck.TYPE_ANY)
	boolType, _ := duck.NewTypeInfo(duck.TYPE_BOOLEAN)
	// Volatile: called for every row, never folded; SpecialNullHandling:
	// called on rows of NULLs too, which count like any other.
	return duck.ScalarFuncConfig{VariadicTypeInfo: anyType, ResultTypeInfo: boolType, Volatile: true, SpecialNullHandling: true}
}

func (keepUDF) Executor() duck.ScalarFuncExecutor {
	return duck.ScalarFuncExecutor{RowContextExecutor: func(ctx context.Context, values []driver.Value) (any, error) {
		b, _ := ctx.Value(budgetKey{}).(*budget)
		if b == nil {
			return true, nil // not a wrapped query of this engine
		}
		row := make([]any, len(values))
		for i, v := range values {
			row[i] = v
		}
		b.mu.Lock()
		defer b.mu.Unlock()
		b.total++
		return b.keep.Keep(row), nil
	}}
}

// wrapKeep returns query wrapped in the filter. The newlines keep a
// trailing line comment of query from swallowing the closing parenthesis.
func wrapKeep(query string) string {
	return "SELECT * FROM (SELECT * FROM (\n" + query + "\n) LIMIT " + strconv.FormatInt(1<<63-1, 10) + ") WHERE " + keepFunc + "(*COLUMNS(*))"
}
