// Package conformance measures the dialect bridge (executor/bqsql run by the
// embedded engine, executor/duckdb) against Google's GoogleSQL compliance
// tests, the specification BigQuery itself is held to.
//
// The test files live with the licensed data in
// ../shared/zetasql-compliance/testdata (copied unchanged from
// google/zetasql; their README gives the commit and format). ReadFile
// parses one file into cases: each case's query, the [prepare_database]
// tables it reads (inlined into it as CTEs by Case.SQL, so every case is one
// SELECT), and its expected result, a typed value literal
// (ARRAY<STRUCT<...>>[...]) or an error. Compare checks the engine's typed
// result against it: column types by BigQuery type, arrays ordered or
// unordered as the literal says, floats within a relative tolerance,
// dates, datetimes and timestamps as instants, NUMERIC exactly.
//
// A case is applicable when BigQuery could run it as written: no query
// parameters or alternations, no forbidden-feature variants, no type
// BigQuery lacks (INT32, UINT64, FLOAT, PROTO, ENUM, RANGE, UUID, ...), and
// no TIMESTAMP in a file whose default time zone is not UTC (ZetaSQL's
// reference uses America/Los_Angeles, BigQuery UTC). Each applicable case is
// classified: agrees, both error, wrong value, error where a value is
// expected (unsupported, or failure), value where an error is expected.
//
// Usage extracts the functions and constructs a query uses; the test counts
// them over the released models' final SQL in ../shared/clinsql-data and
// weights the headline agreement by that usage, so the figure reflects
// what models write for MIMIC-IV rather than the whole language.
package conformance
