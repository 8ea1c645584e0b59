//go:build race

package testrace

// Enabled is true when the binary was built with -race.
const Enabled = true
