package reports

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/clinsql/clinsql/datasets"
)

// LeaderboardTeX is the leaderboard as LaTeX tables, one per split.
const LeaderboardTeX = "leaderboard.tex"

// latexEscape makes text safe in LaTeX's text mode: model names hold _,
// and any of the special characters may appear.
func latexEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\textbackslash{}`)
		case '&', '%', '$', '#', '_', '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '~':
			b.WriteString(`\textasciitilde{}`)
		case '^':
			b.WriteString(`\textasciicircum{}`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// WriteLeaderboardLaTeX writes each split's leaderboard as a booktabs
// table (\usepackage{booktabs}): the SQL and execution score x100 per
// difficulty and overall, the overall ones with their 95% bootstrap
// interval, RS(0) and RS(10) where some model abstained, models in rank
// order, the best overall score of each kind in bold.
func (r *Report) WriteLeaderboardLaTeX(w io.Writer) {
	fmt.Fprintf(w, "%% clinsql report: the leaderboard, %s mode, scores x100 (the published scorer's rounding).\n", modeName(r.Mode))
	fmt.Fprintf(w, "%% Needs \\usepackage{booktabs}. Intervals: %.0f%% percentile bootstrap over tasks, %d resamples, seed %d.\n",
		100*r.Bootstrap.Level, r.Bootstrap.Resamples, r.Bootstrap.Seed)
	if r.Subset != "" {
		fmt.Fprintf(w, "%% Subset: %s\n", r.Subset)
	}
	rs := r.ShowsRS()
	for _, split := range r.Splits {
		names := r.Ranking(split).Models
		// The best overall SQL and execution scores, bold.
		best := [2]float64{math.Inf(-1), math.Inf(-1)}
		for _, n := range names {
			if c := r.Board(r.Mode, n).Cell(split, All, All); c != nil {
				best[0], best[1] = math.Max(best[0], roundPub(c.SQL.Mean)), math.Max(best[1], roundPub(c.Exec.Mean))
			}
		}
		cols := "rlr" + strings.Repeat("r", 8)
		if rs {
			cols += "rr"
		}
		fmt.Fprintf(w, "\n\\begin{table}[t]\n\\centering\n\\small\n")
		cap := fmt.Sprintf("ClinSQL, %s split, %s mode: SQL and execution scores $\\times$100 per difficulty, overall with its 95\\%% bootstrap interval", latexEscape(split), modeName(r.Mode))
		if rs {
			cap += "; RS(0) and RS(10) are the EHRSQL 2024 reliability scores"
		}
		if r.Subset != "" {
			cap += "; subset: " + latexEscape(r.Subset)
		}
		fmt.Fprintf(w, "\\caption{%s.}\n\\label{tab:clinsql-%s}\n", cap, fileSlug(split))
		fmt.Fprintf(w, "\\begin{tabular}{%s}\n\\toprule\n", cols)
		fmt.Fprintf(w, " & & & \\multicolumn{4}{c}{SQL score} & \\multicolumn{4}{c}{Execution score}")
		if rs {
			fmt.Fprint(w, " & \\multicolumn{2}{c}{Reliability}")
		}
		fmt.Fprint(w, " \\\\\n\\cmidrule(lr){4-7}\\cmidrule(lr){8-11}")
		if rs {
			fmt.Fprint(w, "\\cmidrule(lr){12-13}")
		}
		fmt.Fprint(w, "\n\\# & Model & $n$ & Easy & Medium & Hard & All & Easy & Medium & Hard & All")
		if rs {
			fmt.Fprint(w, " & RS(0) & RS(10)")
		}
		fmt.Fprint(w, " \\\\\n\\midrule\n")
		for i, name := range names {
			b := r.Board(r.Mode, name)
			all := b.Cell(split, All, All)
			if all == nil {
				continue
			}
			row := []string{fmt.Sprint(i + 1), latexEscape(name), fmt.Sprint(all.N)}
			if m := r.Model(name); m != nil && m.Database != nil {
				row[1] += "$^*$"
			}
			for k, f := range []func(*Cell) Interval{func(c *Cell) Interval { return c.SQL }, func(c *Cell) Interval { return c.Exec }} {
				for _, d := range datasets.Difficulties {
					if c := b.Cell(split, All, d); c != nil {
						row = append(row, fmt.Sprintf("%.1f", 100*roundPub(f(c).Mean)))
					} else {
						row = append(row, "--")
					}
				}
				iv := f(all)
				v := fmt.Sprintf("%.2f", 100*roundPub(iv.Mean))
				if roundPub(iv.Mean) == best[k] {
					v = `\textbf{` + v + `}`
				}
				if !math.IsNaN(iv.Lo) {
					v += fmt.Sprintf(" {\\scriptsize[%.1f, %.1f]}", 100*iv.Lo, 100*iv.Hi)
				}
				row = append(row, v)
			}
			if rs {
				row = append(row, strings.ReplaceAll(rsText(all.RS, 0), "–", "--"), strings.ReplaceAll(rsText(all.RS, 10), "–", "--"))
			}
			fmt.Fprintf(w, "%s \\\\\n", strings.Join(row, " & "))
		}
		fmt.Fprint(w, "\\bottomrule\n\\end{tabular}\n")
		var notes []string
		for _, name := range names {
			if m := r.Model(name); m != nil && m.Database != nil {
				notes = append(notes, latexEscape(m.Database.Caveat))
			}
		}
		if len(notes) > 0 {
			fmt.Fprintf(w, "\n\\smallskip\\footnotesize $^*$%s\n", strings.Join(notes, " "))
		}
		fmt.Fprint(w, "\\end{table}\n")
	}
}
