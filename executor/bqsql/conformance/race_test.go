//go:build race

package conformance

// raceEnabled: under the race detector the compliance run (2,599 cases
// through the embedded engine) takes far longer than the tests it guards;
// `make test` runs it in its second pass, without the detector.
const raceEnabled = true
