// Package executor runs one SQL query on a database engine and returns a typed
// result or a classified error.
//
// Every engine (the embedded DuckDB engine, BigQuery, SQLite for EHRSQL)
// implements [Executor]. Callers never inspect engine-specific errors: a failed
// query is an [*Error] whose [Class] says whose fault it was (the model's SQL,
// a configured limit, or the infrastructure), which is what the refinement loop
// and the reports need. A row cap truncates a result rather than failing it;
// [Result.TotalRows] keeps the true count when the engine knows it.
//
// Values in [Result.Rows] use a fixed set of Go types so that every engine's
// result is written to CSV, previewed and compared the same way:
//
//	NULL                 nil
//	INT64                int64
//	FLOAT64              float64
//	NUMERIC, BIGNUMERIC  *big.Rat (exact)
//	BOOL                 bool
//	STRING, JSON         string
//	BYTES                []byte
//	DATE                 civil.Date
//	DATETIME             civil.DateTime
//	TIME                 civil.Time
//	TIMESTAMP            time.Time (UTC)
//	INTERVAL             string (engine's canonical text)
//	ARRAY                []any
//	STRUCT               Struct
package executor
