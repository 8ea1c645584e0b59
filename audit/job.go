package audit

import (
	"context"
	"fmt"
	"io"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/runfolder"
)

// Job is an audit as clinsql audit runs it: Sample tasks spread evenly
// over Tasks (0: all), audited under an exclusive lock on Out (one audit
// at a time per folder), the report written there ([Report.WriteFiles]).
type Job struct {
	Tasks   []*datasets.Task
	Sample  int
	Out     string
	Options Options
	// OpenJudge, if set, opens the judge audited once Out is locked (an
	// LLM judge keeps its spending record, cache and ledgers there);
	// otherwise Options.Judge is audited.
	OpenJudge func(out string) (Judge, error)
}

// Costed is a judge whose spending the report carries (an LLM judge).
type Costed interface {
	AuditCost() Cost
}

// RunJob runs the job and writes its report into j.Out.
func RunJob(ctx context.Context, j Job) (*Report, error) {
	lock, err := runfolder.LockExclusive(j.Out)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	opts := j.Options
	if j.OpenJudge != nil {
		if opts.Judge, err = j.OpenJudge(j.Out); err != nil {
			return nil, err
		}
	}
	r, err := Run(ctx, Spread(j.Tasks, j.Sample), opts)
	if err != nil {
		return nil, err
	}
	if c, ok := opts.Judge.(Costed); ok {
		cost := c.AuditCost()
		r.Cost = &cost
	}
	if err := r.WriteFiles(j.Out); err != nil {
		return nil, err
	}
	return r, nil
}

// Spread picks n tasks evenly over the sorted list: every domain and
// difficulty stays represented, and the choice is reproducible. n <= 0
// keeps all.
func Spread(tasks []*datasets.Task, n int) []*datasets.Task {
	if n <= 0 || n >= len(tasks) {
		return tasks
	}
	out := make([]*datasets.Task, n)
	for i := range out {
		out[i] = tasks[i*len(tasks)/n]
	}
	return out
}

// WriteEstimate prints the cost estimated before an LLM judge's audit.
func (c Cost) WriteEstimate(w io.Writer) {
	fmt.Fprintf(w, "audit estimate: at most %d judge calls, at most $%.4f before cache hits", c.EstimatedCall, c.EstimatedUSD)
	if c.BudgetUSD > 0 {
		fmt.Fprintf(w, "; budget $%.4f", c.BudgetUSD)
	}
	fmt.Fprintln(w)
}

// WriteText prints the report's summary (clinsql audit's standard
// output), saying it was written to out.
func (r *Report) WriteText(w io.Writer, out string) {
	tot := r.Totals()
	fmt.Fprintf(w, "audit of %s on %d tasks\n", r.Judge, r.Tasks)
	fmt.Fprintf(w, "%-12s %8s %9s %8s %6s %8s %10s\n", "answer", "answers", "testable", "decided", "wrong", "invalid", "undecided")
	for _, m := range r.Mutations {
		t := tot[m]
		fmt.Fprintf(w, "%-12s %8d %9d %8d %6d %8d %10d\n", m, t.Answers, t.Testable, t.Decided, t.Wrong, t.Invalid, t.Undecided)
	}
	je, rd := r.GoldClassCounts()
	fmt.Fprintf(w, "false fails on gold: %d (%d judge errors, %d rubric/gold defects); missed fails on mutations: %d; rubric lint: %d findings\n",
		len(r.GoldFailures), je, rd, len(r.Missed), len(r.Lint))
	if inv := r.Invalid(); inv > 0 {
		fmt.Fprintf(w, "warning: the judge gave no verdict on %d testable leaves (invalid: failed calls, unreadable replies); the false and missed fails above count decided leaves only\n", inv)
	}
	if c := r.Cost; c != nil {
		fmt.Fprintf(w, "cost: estimated $%.4f, spent $%.4f in %d calls (%d cache hits); budget $%.4f\n", c.EstimatedUSD, c.SpentUSD, c.Calls, c.CacheHits, c.BudgetUSD)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintf(w, "written to %s\n", out)
}
