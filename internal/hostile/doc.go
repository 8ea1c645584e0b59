// Package hostile measures how the clinsql binary bounds model SQL that
// tries to escape its limits (issue 25, items 9 to 11): each hostile query
// runs through the real command line with --timeout, in clinsql exec, in
// clinsql generate (8 tasks in flight, a fake model answering every prompt
// with the query) and, for SQLite, in EHRSQL generation (4 questions at
// once); a second scenario sends SIGTERM while the query runs. For each it
// reports the wall time, the peak resident memory of the process tree
// (clinsql and its engine worker, summed, read from /proc every 20 ms),
// the largest single process's (wait4), and for SIGTERM the time from the
// signal to the exit.
//
// It is a benchmark, never a test: it takes minutes, and what it measures
// is wall time and memory. A watchdog kills the tree at 4 GiB or 200 s, so
// that a binary without the bounds (CLINSQL_BIN, e.g. one built from an
// older commit) can be measured without taking the machine down; such a
// run reports the watchdog's kill instead of an exit.
//
//	CLINSQL_SHARED=../shared go test -run '^$' -bench Hostile -benchtime 1x ./internal/hostile
//	CLINSQL_BIN=/path/to/old/clinsql ... (the same)
//
// HOSTILE_DB names a demo database (clinsql db build) to use rather than
// build one.
package hostile
