// Package cliflag is the grammar clinsql's commands share on top of the
// standard flag package: a mistyped flag or command gets one line naming
// the nearest one ([Nearest]) instead of the whole usage, flags are shown
// with two dashes as the README spells them, old flag names keep working
// with a warning ([Alias]), flags may come among positional arguments
// ([ParseInterleaved]), and every error in the command line itself is a
// [UsageError] (exit code 2).
package cliflag
