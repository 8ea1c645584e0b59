package reports

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clinsql/clinsql/scoring"
)

// WriteBrief writes each split's ranking for a terminal: both modes' task
// counts and averages (x100), RS(0) and RS(10) where some model abstained,
// and the main mode's invalid leaves with the tasks they sit in, the
// figures of the HTML leaderboard; then the report's caveats.
func (r *Report) WriteBrief(w io.Writer) {
	for _, split := range r.Splits {
		fmt.Fprintf(w, "%s split, ranked by %s (%s mode); scores x100\n", split, r.RankBy, r.Mode)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "#\tmodel\t")
		for _, m := range r.Modes() {
			fmt.Fprintf(tw, "%s n\tSQL\tExec\t", m)
		}
		// RS(c) only where some model abstained, as in the HTML and the
		// Markdown: without an abstention it restates the execution score.
		rs := r.ShowsRS()
		if rs {
			fmt.Fprint(tw, "RS(0)\tRS(10)\t")
		}
		fmt.Fprintf(tw, "invalid leaves (tasks, %s)\t\n", r.Mode)
		for i, name := range r.Ranking(split).Models {
			shown := name
			if m := r.Model(name); m != nil && m.Database != nil {
				shown += " (" + m.Database.Badge + ")"
			}
			fmt.Fprintf(tw, "%d\t%s\t", i+1, shown)
			inv := "–"
			rsCells := [2]string{"–", "–"}
			for i, m := range r.Modes() {
				c := r.Board(m, name).Cell(split, All, All)
				if c == nil {
					fmt.Fprint(tw, "0\t–\t–\t")
					continue
				}
				fmt.Fprintf(tw, "%d\t%.2f\t%.2f\t", c.N, 100*scoring.Round6(c.SQL.Mean), 100*scoring.Round6(c.Exec.Mean))
				if i == 0 {
					// The main mode's, as the leaderboard's column.
					inv = invalidText(c)
					if c.RS != nil {
						rsCells = [2]string{fmt.Sprintf("%.2f", c.RS.RS0), fmt.Sprintf("%.2f", c.RS.RS10)}
					}
				}
			}
			if rs {
				fmt.Fprintf(tw, "%s\t%s\t", rsCells[0], rsCells[1])
			}
			fmt.Fprintf(tw, "%s\t\n", inv)
		}
		tw.Flush()
	}
	if len(r.Splits) > 0 {
		fmt.Fprintln(w, strings.ToLower(InvalidLeavesNote[:1])+InvalidLeavesNote[1:])
	}
	for _, c := range r.Caveats() {
		fmt.Fprintln(w, "caveat:", c)
	}
}

// invalidText is a cell's invalid leaves and the tasks they sit in, as
// every table shows them: "15 (1)" (InvalidLeavesNote).
func invalidText(c *Cell) string { return fmt.Sprintf("%d (%d)", c.InvalidLeaves, c.InvalidTasks) }

// invalidText is the judge-health row's invalid leaves (tasks), as the
// leaderboard shows them.
func (h HealthRow) invalidText() string {
	return fmt.Sprintf("%d (%d)", h.InvalidLeaves, h.InvalidTasks)
}
