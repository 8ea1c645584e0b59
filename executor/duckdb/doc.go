// Package duckdb is the embedded executor: an [executor.Executor] over a
// DuckDB database file (built by package executor/mimic), through
// github.com/duckdb/duckdb-go/v2.
//
// Safety. The file is opened read-only with external access (files, network),
// extension installing and autoloading, and community or unsigned extensions
// disabled, memory_limit, threads and max_temp_directory_size set, and then
// lock_configuration on, so no statement can change any of it. Each query must
// be exactly one SELECT (or WITH ... SELECT, or a set operation of them), as
// decided by DuckDB's own parser (json_serialize_sql, run on a private empty
// in-memory instance): DDL, DML, ATTACH, COPY, PRAGMA, INSTALL/LOAD, SET,
// EXPLAIN, several statements and statements hidden after comments are
// refused with [executor.ClassRefused] before anything runs; the prepared
// statement's type is checked again.
//
// Process. The database is open in a worker process, this binary started
// again (worker.go, serve.go): the parent never loads it, and kills the
// worker when its resident memory passes MemoryLimit plus 320 MiB, when a
// query has not stopped 2 s after its timeout or its caller's cancellation,
// and when the engine closes; the worker also dies with its parent. One
// DuckDB function call can allocate outside the buffer manager that
// memory_limit governs and ignore the interrupt until it is done; the kill
// is what bounds it. A memory kill is [executor.ClassUnsupported] (the limit
// is the engine's), as DuckDB's own Out of Memory error is; an overrun is a
// timeout. The other queries in flight run again on a new worker (after a
// memory kill with several in flight, each alone, so that only the one that
// passes the limit alone is charged). Every binary that opens an Engine
// calls [ServeIfWorker] first in main, and test binaries in TestMain; the
// dialect's Go functions are defined by name ([DefineFunctions],
// Options.Functions) so that the worker finds them.
//
// Limits. Every query runs under Limits.Timeout (default 300 s): when it
// expires DuckDB is interrupted, which stops it within milliseconds unless
// one operation holds it (then the worker is killed), and the query fails
// with [executor.ClassTimeout]; a caller's own cancellation is
// [executor.ClassInfra]. The first rows within Limits.MaxRows (default
// 100,000) and Limits.MaxResultBytes (default 32 MiB) are kept; the rest are
// counted, never held, so Result.TotalRows is always the true count. The
// driver materialises a whole result before Go reads a row, outside
// memory_limit, so on one thread (the default) the caps are applied inside
// DuckDB by a filter function around the query (budget.go), and DuckDB's
// result holds only the kept rows. Spill folders of killed processes are
// removed when an engine opens. DuckDB's system views, table functions and
// current_setting() (which name host paths) are refused before a query runs.
//
// Dialect. Options.Translate (the BigQuery-to-DuckDB bridge) rewrites each
// query first; Options.Settings (the bridge's global settings: NULL order,
// time zone) run once before the configuration is locked, and
// Options.Prelude (the bridge's CREATE TEMP MACRO statements) on every new
// connection. A translation error that reports
// Unsupported() true is [executor.ClassUnsupported]; other translation errors
// are syntax errors. Options.Relax may turn a runtime failure into a result
// with a warning ([executor.Result].Warnings): the query runs again on its
// connection with some macros redefined, which are then restored (a
// connection that cannot be restored is discarded). The bridge uses it for
// division by zero on a sample database.
//
// Errors. DuckDB's error types map to classes: Parser, Syntax, Binder,
// Catalog, Planner and type-mismatch errors are ClassSyntax; Conversion, Out
// of Range, Invalid Input, Divide by Zero and other execution errors are
// ClassRuntime; Interrupt is ClassTimeout; Permission (external access) is
// ClassRefused; Not Implemented and missing extensions are ClassUnsupported;
// I/O, connection, internal and fatal errors are ClassInfra; Out of Memory
// (past memory_limit, the engine's limit) is ClassUnsupported.
//
// Each Engine has its own worker and temporary folder; several may open one
// file (read-only). An Engine is safe for concurrent use; share it.
//
// Types. Result columns carry BigQuery type names: integer types are INT64,
// FLOAT/DOUBLE FLOAT64, DECIMAL NUMERIC (*big.Rat, exact), VARCHAR STRING,
// BLOB BYTES, TIMESTAMP DATETIME (civil.DateTime), TIMESTAMPTZ TIMESTAMP
// (time.Time in UTC), DATE, TIME, INTERVAL (BigQuery's "Y-M D H:M:S" text),
// lists ARRAY<...>, structs STRUCT<...> (fields in declaration order), maps
// ARRAY<STRUCT<key, value>>, an untyped NULL INT64. A type with no BigQuery
// counterpart (UNION, ...) fails the query with ClassUnsupported.
package duckdb
