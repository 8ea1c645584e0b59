// Package bqsql translates BigQuery Standard SQL into DuckDB SQL with
// BigQuery's semantics, for the embedded engine that runs ClinSQL queries on
// a local MIMIC-IV database.
//
// The contract:
//
//   - The database holds the MIMIC-IV tables in schemas mimiciv_3_1_hosp,
//     mimiciv_3_1_icu and mimiciv_3_1_derived, with BigQuery types mapped as
//     INT64→BIGINT, FLOAT64→DOUBLE, STRING→VARCHAR, DATE→DATE,
//     DATETIME→TIMESTAMP, TIMESTAMP→TIMESTAMPTZ, NUMERIC→DECIMAL(38,9).
//   - Every connection runs Prelude (session settings, then temporary
//     macros) before any translated query.
//   - Translate(sql) returns DuckDB SQL, or an *Error. errors.Is(err,
//     ErrInvalid) means BigQuery would reject the query too (the engine
//     reports a syntax error); errors.Is(err, ErrUnsupported) means the query
//     is valid BigQuery that the embedded engine cannot answer faithfully.
//     The bridge never returns SQL it knows would answer differently.
//   - Translate does not decide whether a statement is safe to run: the
//     engine still lets DuckDB's parser check that there is exactly one
//     read-only statement.
//
// How it works: Tokenize splits the input into lossless tokens (every
// quoting form, raw and bytes literals, comments, backticked paths);
// buildTree groups them by brackets; rewrite rules then work on the tree:
// table paths in every spelling become "schema"."table", function calls are
// rewritten one by one (funcs.go), a / b becomes bq_div(a, b) with BigQuery's
// operator precedence, subscripts become bq_offset(…), UNNEST aliases become
// DuckDB value-table aliases, and so on. Semantics that need per-type
// dispatch (DATE_DIFF counts date boundaries for DATE and DATETIME
// arguments but whole units for TIMESTAMP ones) live in the prelude's
// overloaded macros, so DuckDB's binder picks the variant, and rejects the
// argument types BigQuery rejects.
//
// With a Catalog (LoadCatalog reads it from the database), Translate also
// checks table names with BigQuery's case sensitivity and rejects the
// comparisons BigQuery refuses at analysis but DuckDB would coerce, such as
// icd_version = '10' (INT64 = STRING).
package bqsql
