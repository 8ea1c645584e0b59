// Package cli is the clinsql command line: argument parsing and wiring of the
// library packages, nothing more. Each command lives in a file of its own and
// is listed once in [commands].
//
// Commands write results to Env.Stdout and diagnostics to Env.Stderr and
// return an error; Main turns errors into exit codes (1, or the code carried by
// an [*ExitError]; 2 for usage errors).
package cli
