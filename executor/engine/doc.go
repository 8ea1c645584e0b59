// Package engine opens an executor by the name the command line gives it
// (--engine): "duckdb", the embedded engine (executor/bqduck), or
// "bigquery" (executor/bigquery). It owns the flags every command that runs
// queries shares ([AddFlags]: the engine's name, the limits every engine
// takes and each engine's own flags) and the [Config] they give, which a
// benchmark config (refine/bench) fills as well.
//
// A bad combination of settings is a [*UsageError], which the command line
// reports as a usage error; every other error is the engine's.
package engine
