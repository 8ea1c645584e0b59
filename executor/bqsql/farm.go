package bqsql

import (
	"database/sql/driver"
	"fmt"

	farm "github.com/dgryski/go-farm"
)

// farmFunc is the Go function FARM_FINGERPRINT becomes: BigQuery's
// FARM_FINGERPRINT is FarmHash's Fingerprint64 of the STRING's UTF-8 bytes
// or of the BYTES, as an INT64 (two's complement).
const farmFunc = "bq_farm_fingerprint"

// goFunctions are the names of the Go functions [Functions] lists
// (translated SQL calls them beside the prelude's macros).
var goFunctions = []string{farmFunc, civilAtFunc, roundExactFunc, castToStringFunc, castToBytesFunc,
	castParseFunc + "date", castParseFunc + "datetime", castParseFunc + "time", castParseFunc + "timestamp"}

// A Function is a Go function that translated SQL calls by name, beside
// the macros of [Prelude]: a BigQuery function no SQL macro computes
// (FARM_FINGERPRINT, BigQuery's time zone names, CAST … FORMAT). The
// package only describes it, so translation links no database engine: the
// engine that runs translated SQL registers every one of [Functions] before
// the first query (executor/bqduck, through the DuckDB engine's scalar
// functions). Functions of one name are overloads.
type Function struct {
	Name string
	// Params and Result are DuckDB type names: VARCHAR, BOOLEAN, BIGINT,
	// DOUBLE, BLOB, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, or ANY (a parameter
	// of any type).
	Params []string
	Result string
	// Eval computes one row's value. It is not called for a row with a
	// NULL argument: the result is NULL, as for BigQuery's functions.
	Eval func(args []driver.Value) (any, error)
}

// Functions lists the bridge's Go functions, overloads side by side.
func Functions() []Function {
	fns := []Function{
		{Name: farmFunc, Params: []string{"ANY"}, Result: "BIGINT", Eval: farmEval},
		{Name: civilAtFunc, Params: []string{"TIMESTAMPTZ", "VARCHAR"}, Result: "TIMESTAMP", Eval: civilAtEval},
		roundFunction(),
	}
	fns = append(fns, castFormatFunctions()...)
	for i := range fns {
		fns[i].Eval = markErrors(fns[i].Eval)
	}
	return fns
}

// markErrors marks the errors fn raises on a value as the query's (see
// goFunctionMark), for the engine to class by Explain.
func markErrors(fn func([]driver.Value) (any, error)) func([]driver.Value) (any, error) {
	return func(v []driver.Value) (any, error) {
		r, err := fn(v)
		return r, goFunctionError(err)
	}
}

func farmEval(values []driver.Value) (any, error) {
	switch v := values[0].(type) {
	case string:
		return farmFingerprint([]byte(v)), nil
	case []byte:
		return farmFingerprint(v), nil
	}
	return nil, fmt.Errorf("No matching signature for function FARM_FINGERPRINT: its argument must be STRING or BYTES, not %T", values[0])
}

func farmFingerprint(b []byte) int64 { return int64(farm.Fingerprint64(b)) }
