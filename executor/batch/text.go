package batch

import (
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/clinsql/clinsql/executor"
)

// WriteText prints the summary of a run into out: the totals and latency,
// every failure and warning, and for runtime errors of gold SQL the note
// that they depend on the data.
func (s *Summary) WriteText(w io.Writer, out string) {
	fmt.Fprintf(w, "%s: %d tasks, %d succeeded, %d failed", s.Engine, s.Total, s.Succeeded, s.Failed)
	if s.LatencyMS != nil {
		fmt.Fprintf(w, "; latency mean %.1f ms, median %.1f ms, p95 %.1f ms", s.LatencyMS.Mean, s.LatencyMS.Median, s.LatencyMS.P95)
	}
	fmt.Fprintf(w, "; %v\n", time.Duration(s.DurationMS*float64(time.Millisecond)).Round(time.Millisecond))
	for _, f := range s.Failures {
		fmt.Fprintf(w, "  %s  %s  %s\n", f.Task, f.Class, FirstLine(f.Error))
	}
	if s.Warned > 0 {
		fmt.Fprintf(w, "%d of them ran with a warning:\n", s.Warned)
		for _, o := range s.Outcomes {
			for _, warning := range o.Warnings {
				fmt.Fprintf(w, "  %s  %s\n", o.Task, warning)
			}
		}
	}
	if n := s.ByClass[executor.ClassRuntime]; n > 0 {
		// Gold SQL is correct on the data it was written for; a runtime
		// error says how this database differs, not that the bridge failed.
		fmt.Fprintf(w, "note: %d runtime error(s) depend on the data, not the dialect: gold SQL is written for the whole of\n"+
			"MIMIC-IV, and on a smaller database groups it leaves empty can divide by zero, as BigQuery would on the same data\n"+
			"(--zero-division null gives NULL there instead)\n", n)
	}
	fmt.Fprintf(w, "summary: %s\n", path.Join(out, SummaryFile))
}

// FirstLine is an error message's first line, for one-line listings.
func FirstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
