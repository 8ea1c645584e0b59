package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"os"
	"testing"

	duck "github.com/duckdb/duckdb-go/v2"
)

// The engine's worker is this test binary started again: TestMain serves
// before any test runs, with the test functions (worker_test.go)
// registered under testFunctions.
func TestMain(m *testing.M) {
	RegisterFunctions(testFunctions, registerTestFunctions)
	ServeIfWorker()
	os.Exit(m.Run())
}

const testFunctions = "test"

// testUDF is a Go scalar function of the tests' worker.
type testUDF struct {
	in  []duck.Type
	out duck.Type
	fn  func([]driver.Value) (any, error)
}

func (u testUDF) Config() duck.ScalarFuncConfig {
	cfg := duck.ScalarFuncConfig{Volatile: true}
	for _, t := range u.in {
		ti, _ := duck.NewTypeInfo(t)
		cfg.InputTypeInfos = append(cfg.InputTypeInfos, ti)
	}
	cfg.ResultTypeInfo, _ = duck.NewTypeInfo(u.out)
	return cfg
}

func (u testUDF) Executor() duck.ScalarFuncExecutor {
	return duck.ScalarFuncExecutor{RowExecutor: u.fn}
}

// ballast holds what balloon allocated, so that it stays resident.
var ballast [][]byte

// registerTestFunctions adds functions that misbehave the way one vector
// operation can (DuckDB's interrupt does not reach a running function):
//
//	hang()          never returns
//	balloon(mb)     allocates and touches mb MiB, then never returns
//	exit_now()      ends the worker process
//	once_block(p)   blocks for ever unless the file p exists; creates it
func registerTestFunctions(ctx context.Context, conn *sql.Conn) error {
	forever := func() { select {} }
	funcs := map[string]testUDF{
		"hang": {out: duck.TYPE_BIGINT, fn: func([]driver.Value) (any, error) { forever(); return nil, nil }},
		"balloon": {in: []duck.Type{duck.TYPE_BIGINT}, out: duck.TYPE_BIGINT, fn: func(v []driver.Value) (any, error) {
			for i := int64(0); i < v[0].(int64); i++ {
				b := make([]byte, 1<<20)
				for j := range b {
					b[j] = 1
				}
				ballast = append(ballast, b)
			}
			forever()
			return nil, nil
		}},
		"exit_now": {out: duck.TYPE_BIGINT, fn: func([]driver.Value) (any, error) { os.Exit(3); return nil, nil }},
		"once_block": {in: []duck.Type{duck.TYPE_VARCHAR}, out: duck.TYPE_BIGINT, fn: func(v []driver.Value) (any, error) {
			f, err := os.OpenFile(v[0].(string), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				return int64(1), nil // there already: the second run
			}
			f.Close()
			forever()
			return nil, nil
		}},
	}
	for name, f := range funcs {
		if err := duck.RegisterScalarUDF(conn, name, f); err != nil {
			return err
		}
	}
	return nil
}
