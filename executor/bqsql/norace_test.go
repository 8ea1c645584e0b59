//go:build !race

package bqsql

// raceEnabled: see race_test.go.
const raceEnabled = false
