// Package bqduck opens the embedded engine: BigQuery SQL run on DuckDB. It
// is the one place that assembles it, and every caller (the command line,
// refine's and the judge audit's tests, the dialect's acceptance tests and
// benchmarks) opens it with [Open].
//
// The engine is executor/duckdb over a database file that clinsql db build
// wrote (executor/mimic), with the dialect bridge executor/bqsql plugged
// in:
//
//   - each query is translated by a bqsql.Translator whose catalog is the
//     schema the database holds (mimic.V31; [Options.Catalog]), so table
//     names and literal comparisons are checked as BigQuery checks them; a
//     translation error is classed unsupported (the bridge's limit, not the
//     model's fault) or syntax;
//   - the submitted SQL is shaped for DuckDB's parser first (backticked
//     names quoted, literals blanked), so a statement that is not one
//     SELECT is refused as such;
//   - bqsql.Settings run once before the configuration is locked, the
//     prelude's macros on every connection, and bqsql.Functions (Go
//     functions: FARM_FINGERPRINT, BigQuery's time zones, CAST … FORMAT)
//     are registered when the engine opens;
//   - DuckDB's error messages are explained in BigQuery's words
//     (bqsql.Explain).
//
// Division by zero ([ZeroDivision]) fails the query as on BigQuery
// (ZeroDivisionError), or gives NULL with a warning in the result
// (ZeroDivisionNull, through bqsql.RelaxDivision). ZeroDivisionAuto, the
// default, decides by the database: NULL on a sample of MIMIC-IV (fewer than
// a tenth of v3.1's patients, such as the 100-patient demo, where an empty
// group is the sample's doing), an error otherwise. The database's facts
// (what clinsql db build recorded in mimic.FactsTable, or for an older file
// its patient count) are read once at open; [Engine.DatabaseFacts] gives
// them to a run's manifest and [Engine.Semantics] names the division mode in
// a run's settings, so a run is never resumed under other semantics.
//
// [AddFlags] binds the engine's command-line flags (--db, --memory,
// --threads, --zero-division); the limits every engine shares (--timeout,
// --max-rows, --max-result-bytes) are the caller's.
package bqduck
