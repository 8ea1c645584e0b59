//go:build race

package bqsql

// raceEnabled: under the race detector the real-query golden (3,200 queries
// through the embedded engine) takes far longer than the tests it guards;
// `make test` runs it in its second pass, without the detector.
const raceEnabled = true
