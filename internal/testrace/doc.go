// Package testrace tells tests whether the race detector is on, so that a
// test whose subject is data processing at scale (the whole validation
// split through the embedded engine, the replays of every released model,
// Google's compliance run) can run a stated part of its data under the
// detector and all of it in `make test`'s second pass, without it.
//
// The detector makes such tests five to ten times slower while adding
// nothing to what they check: their concurrency is the same on 20 tasks as
// on 190. Package runtime/race's own flag is internal to the standard
// library; this is the usual build-tag pair.
package testrace
