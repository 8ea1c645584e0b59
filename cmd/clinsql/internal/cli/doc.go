// Package cli is the clinsql command line: it parses flags, builds the
// typed jobs of the library packages (judge.RunJob with a
// judge.BackendSpec, audit.RunJob, ehrsqlbench.Job, reports.Run,
// refine.Generate, executor/engine.Open, ...) and prints what they did,
// nothing more: the policy (which backend, which tasks, what goes in an
// output folder) is the packages'. Each command lives in a file of its
// own and is listed once in [commands]; a command that another reuses
// (clinsql run runs generate, judge and report) does so through its
// typed request, never through argv.
//
// Commands write results to Env.Stdout and diagnostics to Env.Stderr and
// return an error; Main turns errors into exit codes (1, or the code carried by
// an [*ExitError]; 2 for usage errors).
package cli
