package scoring

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/clinsql/clinsql/datasets"
)

// The tables below print scores x100 with two decimals, as the paper does.

func pct(x float64) string { return fmt.Sprintf("%.2f", 100*Round6(x)) }

// WriteReferenceText prints the scenario x difficulty table and the check
// of recomputed against recorded task scores.
func (r *Rescored) WriteReferenceText(w io.Writer) {
	mismatch := 0
	for _, t := range r.Tasks {
		if t.SQL.Value != t.RecordedSQL || t.Results.Value != t.RecordedResults {
			mismatch++
		}
	}
	fmt.Fprintf(w, "%s  %s  mode %s  %d tasks; recomputed task scores differing from the recorded ones: %d\n\n",
		r.Model, r.Split, r.Mode, len(r.Tasks), mismatch)
	Summarise(r.Tasks).WriteCells(w)
}

// WriteCells prints SQL and execution scores per scenario and difficulty.
func (b *Breakdown) WriteCells(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-36s\tn\t", "scenario")
	fmt.Fprint(tw, "SQL easy\tmedium\thard\tall\tExec easy\tmedium\thard\tall\t\n")
	row := func(name string, all Average, cells map[string]Average) {
		fmt.Fprintf(tw, "%-36s\t%d\t", name, all.N)
		for _, field := range []func(Average) float64{
			func(a Average) float64 { return a.SQL },
			func(a Average) float64 { return a.Results },
		} {
			for _, d := range datasets.Difficulties {
				if a, ok := cells[d]; ok {
					fmt.Fprintf(tw, "%s\t", pct(field(a)))
				} else {
					fmt.Fprint(tw, "-\t")
				}
			}
			fmt.Fprintf(tw, "%s\t", pct(field(all)))
		}
		fmt.Fprintln(tw)
	}
	for _, s := range b.Scenarios() {
		row(s, b.ByScenario[s], b.ByCell[s])
	}
	row("all", b.All, b.ByDifficulty)
	tw.Flush()
}

// strictChanges counts what strict mode changed against the reference.
type strictChanges struct {
	kinds                   map[string]int
	kindTasks, invalidTasks int
	ungraded                int
	changedSQL, changedExec int
}

func compareStrict(ref, strict *Rescored) strictChanges {
	c := strictChanges{kinds: map[string]int{}}
	refByKey := map[datasets.Key]*TaskScore{}
	for _, t := range ref.Tasks {
		refByKey[t.Key] = t
	}
	for _, t := range strict.Tasks {
		n := 0
		for k, v := range t.Kinds {
			c.kinds[k] += v
			n += v
		}
		if n > 0 {
			c.kindTasks++
		}
		if t.Invalid() > 0 {
			c.invalidTasks++
		}
		if !t.Graded {
			c.ungraded++
			continue
		}
		if rt := refByKey[t.Key]; rt != nil {
			if rt.SQL.Value != t.SQL.Value {
				c.changedSQL++
			}
			if rt.Results.Value != t.Results.Value {
				c.changedExec++
			}
		}
	}
	return c
}

// WriteStrictText prints the strict table beside the reference one (ref),
// with what changed and why.
func (r *Rescored) WriteStrictText(w io.Writer, ref *Rescored) {
	c := compareStrict(ref, r)
	fmt.Fprintf(w, "%s  %s  strict mode beside the published (reference) scores\n", r.Model, r.Split)
	fmt.Fprintf(w, "recorded judge errors: %d leaves; unreadable replies: %d; non-binary scores: %d; in %d tasks\n",
		c.kinds[KindJudgeError], c.kinds[KindUnparsed], c.kinds[KindNonBinary], c.kindTasks)
	fmt.Fprintf(w, "tasks scored differently: SQL %d, execution %d; tasks with invalid leaves: %d; tasks the grading lacks: %d\n\n",
		c.changedSQL, c.changedExec, c.invalidTasks, c.ungraded)

	rb, sb := Summarise(ref.Tasks), Summarise(r.Tasks)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "difficulty\tn pub\tn strict\tSQL pub\tstrict\tExec pub\tstrict\tinvalid tasks\t\n")
	row := func(name string, r, s Average) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t\n", name, r.N, s.N, pct(r.SQL), pct(s.SQL), pct(r.Results), pct(s.Results), s.InvalidTasks)
	}
	for _, d := range datasets.Difficulties {
		row(d, rb.ByDifficulty[d], sb.ByDifficulty[d])
	}
	row("all", rb.All, sb.All)
	tw.Flush()
	fmt.Fprintln(w, "\nstrict scores by scenario:")
	sb.WriteCells(w)
	if c.invalidTasks > 0 {
		fmt.Fprintln(w, "\nstrict scores count invalid leaves as failures; scoring_results.json gives each task's bounds.")
	}
}

// WriteBrief prints one line: the published (reference, ref) averages and
// those of r's mode.
func (r *Rescored) WriteBrief(w io.Writer, ref *Rescored) {
	rb, sb := Summarise(ref.Tasks), Summarise(r.Tasks)
	fmt.Fprintf(w, "%-40s %-9s %4d  SQL %6s  Exec %6s  |  %-9s %4d  SQL %6s  Exec %6s  invalid tasks %d\n",
		r.Model, ref.Mode, rb.All.N, pct(rb.All.SQL), pct(rb.All.Results), r.Mode, sb.All.N, pct(sb.All.SQL), pct(sb.All.Results), sb.All.InvalidTasks)
}
