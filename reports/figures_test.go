package reports

import (
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFigures: Write puts every chart in figures/ as a well-formed SVG
// file with its title; each score panel lists every model once, sorted
// by value, each bar with its interval and its value written.
func TestFigures(t *testing.T) {
	r := buildFixtureReport(t, writeFixtureSet(t), Options{})
	r.EHRSQL = fixtureEHRSQL()
	out := t.TempDir()
	if _, err := r.Write(out); err != nil {
		t.Fatal(err)
	}
	figs := r.figures()
	files, _ := filepath.Glob(filepath.Join(out, FiguresDir, "*.svg"))
	if len(files) != len(figs) || len(files) < 10 {
		t.Fatalf("%d figure files for %d charts", len(files), len(figs))
	}
	seen := map[string]bool{}
	for _, f := range figs {
		if seen[f.File] {
			t.Errorf("two charts write %s", f.File)
		}
		seen[f.File] = true
		b, err := os.ReadFile(filepath.Join(out, FiguresDir, f.File))
		if err != nil {
			t.Fatal(err)
		}
		dec := xml.NewDecoder(strings.NewReader(string(b)))
		for {
			_, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Errorf("%s: not well-formed XML: %v", f.File, err)
				break
			}
		}
		if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "font-weight=\"bold\"") {
			t.Errorf("%s: no svg element or no title", f.File)
		}
	}
	for _, split := range r.Splits {
		for _, f := range r.leaderboardPanels(split) {
			var vals []float64
			labels := 0
			for _, rect := range f.Chart.Rects {
				if !strings.Contains(rect.Title, "95% CI") {
					t.Errorf("%s: bar %q without its interval", f.File, rect.Title)
				}
			}
			for _, tx := range f.Chart.Texts {
				if tx.Anchor == "end" {
					labels++
				}
				if tx.Anchor == "start" && tx.Size == 10 && strings.Contains(tx.Text, "(n = ") {
					var v float64
					if _, err := fmtSscan(tx.Text, &v); err == nil {
						vals = append(vals, v)
					}
				}
			}
			if labels != len(r.Models) {
				t.Errorf("%s: %d model labels, want %d", f.File, labels, len(r.Models))
			}
			for i := 1; i < len(vals); i++ {
				if vals[i] > vals[i-1]+1e-9 {
					t.Errorf("%s: not sorted: %v", f.File, vals)
				}
			}
			if len(vals) == 0 || math.IsNaN(vals[0]) {
				t.Errorf("%s: no value labels", f.File)
			}
		}
	}
}

// fmtSscan reads the number a value label starts with.
func fmtSscan(s string, v *float64) (int, error) {
	x, err := strconv.ParseFloat(strings.Fields(s)[0], 64)
	*v = x
	return 1, err
}

// TestLeaderboardLaTeX: leaderboard.tex is a booktabs table per split,
// models in rank order with LaTeX's special characters escaped, the best
// overall scores in bold.
func TestLeaderboardLaTeX(t *testing.T) {
	fs := writeFixtureSet(t)
	fs.runs = append(fs.runs, writeJudgedRun(t, t.TempDir(), fs.tasks))
	r := buildFixtureReport(t, fs, Options{})
	var b strings.Builder
	r.WriteLeaderboardLaTeX(&b)
	tex := b.String()
	for _, want := range []string{`\begin{table}`, `\toprule`, `\midrule`, `\bottomrule`, `\label{tab:clinsql-validation}`, `\label{tab:clinsql-test}`,
		`gamma-judged`, `alpha-sql$^*$`, `\textbf{`, `{\scriptsize[`, `$^*$alpha-sql ran on a sample database`} {
		if !strings.Contains(tex, want) {
			t.Errorf("leaderboard.tex lacks %q", want)
		}
	}
	if got := latexEscape(`a_b & c% $d# {e} ~f^ \g`); got != `a\_b \& c\% \$d\# \{e\} \textasciitilde{}f\textasciicircum{} \textbackslash{}g` {
		t.Errorf("latexEscape: %s", got)
	}
	// Rank order: the validation table's rows follow the ranking.
	table := tex[strings.Index(tex, `\label{tab:clinsql-validation}`):]
	table = table[:strings.Index(table, `\bottomrule`)]
	last := -1
	for _, m := range r.Ranking("validation").Models {
		i := strings.Index(table, latexEscape(m))
		if i < last {
			t.Errorf("%s out of rank order", m)
		}
		last = i
	}
}
