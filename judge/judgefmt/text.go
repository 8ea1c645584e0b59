package judgefmt

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/clinsql/clinsql/scoring"
)

// WriteText prints the summary as clinsql judge does at the end of a run:
// the leaves per tree and who decided them, the judge's calls and costs,
// each split's scores (x100, and as written), and the files written to
// out.
func (s *Summary) WriteText(w io.Writer, out string) {
	fmt.Fprintf(w, "%s  mode %s  judge %s", s.Model, s.Mode, s.Judge)
	if s.ReferenceGuided {
		fmt.Fprint(w, "  REFERENCE-GUIDED")
	}
	if s.Completeness != "complete" {
		fmt.Fprintf(w, "  %s", strings.ToUpper(s.Completeness))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "leaves\ttotal\tcode\tllm\treplay\tskipped\tinvalid\tundecided\t\n")
	for _, name := range []Tree{TreeSQL, TreeResults} {
		c := s.ByTree[name]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, c.Total, c.Code, c.LLM, c.Replay, c.Skipped, c.Invalid, c.Undecided)
	}
	fmt.Fprintf(tw, "all\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", s.LeavesTotal, s.LeavesCode, s.LeavesLLM, s.LeavesReplay, s.LeavesSkipped, s.LeavesInvalid, s.LeavesUndecided)
	tw.Flush()
	group := s.Group
	if s.GroupGated {
		group += "+gated"
	}
	fmt.Fprintf(w, "judge calls %d (%.2f per task, grouping %s) for %d leaves", s.BackendCalls, s.BackendCallsPerTask, group, s.LeavesLLM+s.LeavesReplay)
	if s.BackendLeavesUncounted > 0 {
		fmt.Fprintf(w, ", %d of them cannot count", s.BackendLeavesUncounted)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "llm calls %d (%.2f per task; %d cache hits), tokens %d prompt + %d completion, $%.4f; this run: %d calls, %d leaves recorded\n",
		s.LLMCalls, s.LLMCallsPerTask, s.CacheHits, s.PromptTokens, s.CompletionTokens, s.CostUSD, s.This.LLMCalls, s.This.Recorded)
	if s.RepliesCostUSD > 0 || s.Spending != nil {
		fmt.Fprintf(w, "the replies the verdicts used cost $%.4f when bought (cache hits included)", s.RepliesCostUSD)
		if sp := s.Spending; sp != nil {
			fmt.Fprintf(w, "; spent by this run $%.4f, by every run into this folder $%.4f", sp.ThisRunUSD, sp.FolderUSD)
		}
		fmt.Fprintln(w)
	}
	if s.FlipRate != nil {
		fmt.Fprintf(w, "k=%d vote: flip rate %.3f\n", s.Samples, *s.FlipRate)
	}
	s.writeSplits(w)
	if n := len(s.Excluded); n > 0 {
		fmt.Fprintf(w, "left out of the scores in reference mode, as the published scorer did: %d task(s) the recorded grading lacks (%s); strict mode keeps them\n",
			n, strings.Join(s.Excluded, ", "))
	}
	fmt.Fprintf(w, "wrote %s, %s, %s, %s, %s and %s to %s\n", LedgerFile, GradingFile, scoring.ScoringFile,
		scoring.DifficultyFile, scoring.ScenarioFile, SummaryFile, out)
}

// writeSplits prints each split's scores, x100 and as written.
func (s *Summary) writeSplits(w io.Writer) {
	var splits []string
	for k := range s.Splits {
		splits = append(splits, k)
	}
	sort.Strings(splits)
	pct := func(x float64) string { return fmt.Sprintf("%.2f", 100*scoring.Round6(x)) }
	for _, split := range splits {
		v := s.Splits[split]
		fmt.Fprintf(w, "%s: %d tasks, SQL %s (%.6f), execution %s (%.6f), %s mode", split, v.Tasks, pct(v.AverageSQLScore), v.AverageSQLScore,
			pct(v.AverageResultsScore), v.AverageResultsScore, s.Mode)
		if s.Completeness != "complete" {
			fmt.Fprintf(w, " (%s: not a score of the whole run)", s.Completeness)
		}
		if v.TasksWithInvalid > 0 {
			fmt.Fprintf(w, ", %d tasks with invalid leaves", v.TasksWithInvalid)
		}
		fmt.Fprintln(w)
	}
}
