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
//   - Settings (SET GLOBAL: BigQuery's NULL ordering, UTC) run once before
//     the configuration is locked, and Macros (temporary macros) on every
//     connection before any translated query. Prelude is both, for a single
//     connection.
//   - Translate(sql) returns DuckDB SQL, or an *Error. errors.Is(err,
//     ErrInvalid) means BigQuery would reject the query too (the engine
//     reports a syntax error); errors.Is(err, ErrUnsupported), or the
//     error's Unsupported method, means the query is valid BigQuery that the
//     embedded engine cannot answer faithfully. The bridge does not return
//     SQL it knows would answer differently.
//   - A script of queries is translated to its last query, the ones before
//     it returned as statements the engine binds first (translate.go's
//     script). A script with a statement of BigQuery's procedural language
//     (DECLARE, SET, BEGIN … END, IF, loops, CALL, …) is ErrUnsupported,
//     or ErrInvalid where BigQuery's parser rejects it (procedural.go).
//   - Translation is linear in the query's size, and
//     TranslateCheckedContext stops when its context is done: the engine
//     gives it the query's timeout, so hostile input (a 1.2 MB query of
//     13,500 CTEs) is translated or refused within it.
//   - Translate does not decide whether a statement is safe to run: the
//     engine still lets DuckDB's parser check that there is exactly one
//     read-only statement.
//   - Translated SQL calls Go functions beside the macros ([Functions]:
//     FARM_FINGERPRINT, BigQuery's time zones, CAST … FORMAT). The package
//     describes them as plain Go and links no database engine: the engine
//     registers them (executor/bqduck, the one place that assembles the
//     embedded engine from this package and executor/duckdb).
//
// The statement model (model.go, modeltypes.go): before any rewrite the
// query is parsed once into GoogleSQL's syntax tree by
// github.com/sqlc-dev/zetajones (a pure-Go port of the GoogleSQL reference
// parser, Apache-2.0; chosen over writing a parser of our own because it
// reads the GoogleSQL grammar BigQuery uses, released queries included),
// its names are resolved as BigQuery resolves them (a FROM item's range
// variable, CTEs visible to later CTEs, the innermost query before an
// outer one) and every expression is typed upward from the catalogue
// (modeltypes.go: each operator's and function's result type from its
// arguments, BigQuery's "Return type" tables). Rules ask it for the type of
// the expression they rewrite (emitter.exprType); where it has none (a
// statement it cannot parse, a construct it does not follow) they fall back
// to the flat facts of the scan. Decisions that need the grammar's structure
// as well as types are made in the model while it types the tree, and noted
// by source position for the emitter: DATE - DATE (model.dateDiffs: the
// parser decides the operands, the model their types, the emitter rewrites
// the span to an INTERVAL of days), the set operation checks
// (model.checkSetOpBranch: each branch's columns against the first's,
// reported by the "set operation types" pass), a LIKE pattern that is not
// a literal (model.likePatterns: its extent and type, for the emitter to
// escape and check it, through a macro that dispatches on the type where
// the model cannot tell it) and an ORDER BY name of a v.* output column (model.starKeys:
// a key that is the bare name, qualified inside the NaN order key;
// model.starNames: such a name inside a key that is an expression,
// qualified wherever it is emitted, as BigQuery resolves ORDER BY names
// among the select list's first). A new rule of that kind goes
// there, not in a scan of the items. The transforms run in the order listed
// in passes.go, which also says where a new function, macro, construct,
// check or error wording goes; DuckDB SQL is then emitted once
// (emitter.seq).
//
// Where a change goes, in short: a function's translation in funcs.go, its
// BigQuery signature in signatures.go, its result type (when it depends on
// the arguments) in modeltypes.go's functionType; an operator's result type
// in modeltypes.go's binaryType; a construct the model should follow (a
// new FROM item, a scope rule) in model.go; a semantic a DuckDB macro can
// carry in prelude.go; a construct whose translation needs its operands
// restructured in restructure.go; a check or rewrite over whole clauses in
// passes.go's list; an error DuckDB words its own way in wording.go. Every
// rule has a rule test that runs the translated SQL on DuckDB (rules_test.go
// and the topic's _test.go, e.g. extract_test.go: EXTRACT of a value typed
// through each construct that can make a date).
//
// Translation time is measured over every real query the project holds
// (BenchmarkTranslateRealQueries, translatebench_test.go; compare with
// benchstat against a tree before a change). The model's parse is about a
// quarter of it; the rest is the passes over the item tree, which keep
// their allocations few (one item slab per query, memoised upper case,
// keyword sets looked up without allocating).
//
// How it works: Tokenize splits the input into lossless tokens (every
// quoting form, raw and bytes literals, comments, backticked paths);
// buildTree groups them by brackets; rewrite rules then work on the tree:
// table paths in every spelling become "schema"."table", function calls are
// rewritten one by one (funcs.go; what BigQuery itself accepts of each
// function, its kind and argument counts, is the separate catalogue in
// signatures.go, which decides the blame: a call BigQuery rejects is the
// model's error, one it accepts that no rule translates unsupported), a / b becomes bq_div(a, b) with BigQuery's
// operator precedence, subscripts become bq_offset(…), UNNEST aliases become
// DuckDB value-table aliases, the outermost SELECT's unnamed columns get
// BigQuery's names f0_, f1_, …, every ORDER BY key gets an extra key that
// sorts FLOAT64 as BigQuery does (NULL < NaN < -inf, nanorder.go), a WITH
// expression's variables are inlined where that is exact and refused where
// it is not (withexpr.go), and so on. Semantics that depend on argument
// types live in the prelude's macros. DATE_DIFF, DATETIME_DIFF and
// TIMESTAMP_DIFF take their meaning from the argument types, as in BigQuery:
// DATE and DATETIME arguments count part boundaries, TIMESTAMP arguments
// whole elapsed units; the macros dispatch on typeof() rather than on typed
// overloads, because DuckDB cannot pick an overload for a correlated
// argument. GROUP BY and ORDER BY names resolve to SELECT aliases before
// FROM columns, as in BigQuery (aliases.go): an item that is an alias
// becomes its ordinal, an alias inside an ORDER BY expression the aliased
// expression. DATE_ADD and the *_TRUNC family, whose result type follows the
// argument's, are typed overloads; where the statement model (without one,
// the catalog or a CTE's select list) gives the argument's type the
// translator calls the single-typed macro instead
// (bq_date_add_day__datetime), which binds when the argument is a column of
// an outer query, and otherwise such a query is reported unsupported
// (Explain), not blamed on the model. EXTRACT dispatches on the value's
// engine type in its macro, so it needs the operand's DuckDB type to be
// BigQuery's: the rewrites above (DATE - DATE above all) keep it so. Checks
// that BigQuery makes at analysis but DuckDB would let pass
// (unknown functions such as MEDIAN, WITHIN GROUP, a table name used as a
// value, IN subqueries in join conditions, …) reject the query before it
// runs; type errors found only by the macros surface when the query runs,
// so where the statement model types an operand the check is also made at
// translation (EXTRACT, LOWER): a query over no rows must fail as BigQuery's
// analysis fails it. The converse holds too: an error BigQuery raises while
// a function runs (a regular expression RE2 cannot parse) is raised only on
// a row that reaches the call (funcs.go's regexpPattern), never when DuckDB
// binds the query.
// Division by zero raises BigQuery's error; RelaxDivision is the engine's
// way to give NULL instead, with a warning, where the database is a sample
// (the command line's --zero-division).
//
// With a Catalog (LoadCatalog reads it from the database), Translate also
// checks table names with BigQuery's case sensitivity and rejects the
// comparisons BigQuery refuses but DuckDB would coerce, such as
// icd_version = '10' (INT64 = STRING), for operands whose type is certain:
// MIMIC columns through their table aliases, and CTE columns whose select
// list names a typed column, literal, CAST or MIN/MAX/ANY_VALUE of one. The
// alias map is flat over the query; an alias bound to two tables is typed
// nowhere. A SELECT alias used in its own block's WHERE is rejected
// ("Unrecognized name") where the block reads only MIMIC tables and the
// name can be nothing else. BigQuery analyses every CTE, DuckDB binds only
// the CTEs a query reads: TranslateChecked gives the engine a statement over the
// unread ones to prepare first, so an error inside them fails the query.
//
// Choices where BigQuery is approximate or DuckDB lacks a type:
// APPROX_QUANTILES(x, n)[OFFSET(k)] is the exact discrete quantile (the
// value of rank ceil(k/n·N)), which BigQuery's algorithm returns on small
// inputs (with RESPECT NULLS, over all values with NULLs first);
// APPROX_TOP_COUNT counts exactly, ties in value order (over INTERVALs,
// which BigQuery counts equal across fields, it is refused); APPROX_COUNT_DISTINCT
// is COUNT(DISTINCT); BIGNUMERIC is
// DECIMAL(38, 18). ROUND(x, d) rounds the decimal value of the double, as
// BigQuery's long-double arithmetic does; CAST(FLOAT64 AS STRING) prints
// like BigQuery (15 significant digits, 17 when needed). The unversioned
// datasets mimiciv_hosp, mimiciv_icu and mimiciv_derived are read as the
// v3.1 ones.
package bqsql
