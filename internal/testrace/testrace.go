package testrace

import "testing"

// SecondPass is the Makefile's promise, stated once for every test that
// uses Part or SecondPassOnly: `make test` runs the whole of such a test
// again without the race detector (its second pass names each one, and
// TestSecondPassNamesEveryTest checks that it does).
const SecondPass = "make test runs all of it in its second pass, without the race detector"

// SecondPassOnly skips t under the race detector. It is for tests that
// compare figures over a whole data set with a golden file (a part would
// not match it) and whose code is single-threaded data processing, which
// the detector slows without checking anything.
func SecondPassOnly(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("race detector on: skipped; " + SecondPass)
	}
}

// Part returns every n-th element of items, starting with the first,
// when the race detector is on, and items unchanged otherwise. Evenly
// spaced rather than a prefix, so that a split ordered by scenario or
// difficulty keeps all of them. It logs what it kept.
func Part[T any](t testing.TB, items []T, n int) []T {
	t.Helper()
	if !Enabled || n <= 1 || len(items) <= n {
		return items
	}
	var kept []T
	for i := 0; i < len(items); i += n {
		kept = append(kept, items[i])
	}
	t.Logf("race detector on: %d of %d items (every %d-th); %s", len(kept), len(items), n, SecondPass)
	return kept
}
