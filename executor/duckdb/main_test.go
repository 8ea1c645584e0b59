package duckdb

import (
	"database/sql/driver"
	"errors"
	"os"
	"runtime"
	"testing"
	"time"
)

// The engine's worker is this test binary started again: TestMain serves
// before any test runs, with the test functions defined under
// testFunctions.
func TestMain(m *testing.M) {
	DefineFunctions(testFunctions, misbehaving)
	ServeIfWorker()
	os.Exit(m.Run())
}

const testFunctions = "test"

// ballast holds what balloon allocated, so that it stays resident.
var ballast [][]byte

// misbehaving are functions that behave the way one vector operation can
// (DuckDB's interrupt does not reach a running function):
//
//	hang()          never returns
//	balloon(mb)     allocates and touches mb MiB, then never returns
//	exit_now()      ends the worker process
//	once_block(p)   blocks for ever unless the file p exists; creates it
//	fail(msg)       fails with the error msg
//	retain(mb)      allocates and touches mb MiB, keeps it, returns 1
//	grow(mb)        allocates and touches mb MiB, holds it for a moment,
//	                lets it go and returns 1
func misbehaving() []Function {
	forever := func() { select {} }
	return []Function{
		{Name: "hang", Result: "BIGINT", Eval: func([]driver.Value) (any, error) { forever(); return nil, nil }},
		{Name: "balloon", Params: []string{"BIGINT"}, Result: "BIGINT", Eval: func(v []driver.Value) (any, error) {
			ballast = append(ballast, touched(v[0].(int64))...)
			forever()
			return nil, nil
		}},
		// retain(mb) is memory an earlier query left resident (what an
		// allocator keeps after a query frees it).
		{Name: "retain", Params: []string{"BIGINT"}, Result: "BIGINT", Eval: func(v []driver.Value) (any, error) {
			ballast = append(ballast, touched(v[0].(int64))...)
			return int64(1), nil
		}},
		{Name: "grow", Params: []string{"BIGINT"}, Result: "BIGINT", Eval: func(v []driver.Value) (any, error) {
			held := touched(v[0].(int64))
			// Long enough for the parent's memory poll (every 10 ms).
			time.Sleep(300 * time.Millisecond)
			runtime.KeepAlive(held)
			return int64(1), nil
		}},
		// fail(msg) fails with msg, as a dialect's function fails on a
		// value (TestGoFunctionErrors).
		{Name: "fail", Params: []string{"VARCHAR"}, Result: "VARCHAR", Eval: func(v []driver.Value) (any, error) { return nil, errors.New(v[0].(string)) }},
		{Name: "exit_now", Result: "BIGINT", Eval: func([]driver.Value) (any, error) { os.Exit(3); return nil, nil }},
		{Name: "once_block", Params: []string{"VARCHAR"}, Result: "BIGINT", Eval: func(v []driver.Value) (any, error) {
			f, err := os.OpenFile(v[0].(string), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
			if err != nil {
				return int64(1), nil // there already: the second run
			}
			f.Close()
			forever()
			return nil, nil
		}},
	}
}

// touched allocates mb MiB and makes it resident.
func touched(mb int64) [][]byte {
	var bs [][]byte
	for i := int64(0); i < mb; i++ {
		b := make([]byte, 1<<20)
		// One byte a page makes it resident; a loop over every byte took
		// tens of seconds under -race on a loaded machine.
		for j := 0; j < len(b); j += 4096 {
			b[j] = 1
		}
		bs = append(bs, b)
	}
	return bs
}
