package cli

import (
	"fmt"
	"io"

	"github.com/clinsql/clinsql/executor"
)

// Exit codes, one table for every command (README, "Exit codes"). The
// query classes of exec sit in a block of their own so that no code means
// two things: 3 is always "incomplete, run again", never a query's fault.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitInterrupted = 130 // Ctrl-C or SIGTERM, as shells report a death by SIGINT (128+2)
	// exitIncomplete (3, defined beside judge) is a run that stopped early
	// (budget, failing endpoint, pending tasks): run again to resume.
)

// classExitCodes are the exit codes of a failed query, one per class, so that
// scripts can tell whose fault a failure was.
var classExitCodes = []struct {
	class executor.Class
	code  int
}{
	{executor.ClassRuntime, 4},
	{executor.ClassTimeout, 5},
	{executor.ClassBytesLimit, 6},
	{executor.ClassRowLimit, 7},
	{executor.ClassRefused, 8},
	{executor.ClassUnsupported, 9},
	{executor.ClassInfra, 10},
	{executor.ClassSyntax, 11},
}

func exitCodeOf(c executor.Class) int {
	for _, e := range classExitCodes {
		if e.class == c {
			return e.code
		}
	}
	return exitFailure
}

// printExitCodes writes the exit-code table, shown by every command's -h.
func printExitCodes(w io.Writer) {
	fmt.Fprintln(w, "exit codes:")
	fmt.Fprintf(w, "  %3d  success\n", exitOK)
	fmt.Fprintf(w, "  %3d  failure\n", exitFailure)
	fmt.Fprintf(w, "  %3d  usage error (the command line itself)\n", exitUsage)
	fmt.Fprintf(w, "  %3d  incomplete: something is pending; run the same command again to resume\n", exitIncomplete)
	for _, e := range classExitCodes {
		fmt.Fprintf(w, "  %3d  a query failed: %s (exec)\n", e.code, e.class)
	}
	fmt.Fprintf(w, "  %3d  interrupted (Ctrl-C or SIGTERM); what finished stays on disk\n", exitInterrupted)
}
