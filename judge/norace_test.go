//go:build !race

package judge

// raceEnabled: see race_test.go.
const raceEnabled = false
