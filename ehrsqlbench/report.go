package ehrsqlbench

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clinsql/clinsql/internal/atomicfile"
)

// RunReport is what a run folder holds for the report: its results and
// each model's calibration.
type RunReport struct {
	Dir          string
	Results      []*Result
	Calibrations []*Calibration
}

// ReadRun reads OUT/summary.json and every OUT/<model>/calibration.json.
func ReadRun(dir string) (*RunReport, error) {
	l := Layout{Root: dir}
	var sum RunResult
	ok, err := readJSON(l.Summary(), &sum)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: no summary.json: run clinsql generate --benchmark ehrsql to the end first", dir)
	}
	r := &RunReport{Dir: dir, Results: sum.Results}
	seen := map[string]bool{}
	for _, res := range sum.Results {
		if seen[res.Model] {
			continue
		}
		seen[res.Model] = true
		if err := checkName(res.Model); err != nil {
			return nil, fmt.Errorf("%s: %w", l.Summary(), err)
		}
		var c Calibration
		ok, err := readJSON(l.Calibration(res.Model), &c)
		if err != nil {
			return nil, err
		}
		if ok {
			r.Calibrations = append(r.Calibrations, &c)
		}
	}
	return r, nil
}

// checkName refuses a model name from a file that cannot name a folder.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		return fmt.Errorf("model name %q cannot name a folder", name)
	}
	return nil
}

// WriteReport writes the EHRSQL section of a report into out:
// ehrsql.md and ehrsql.csv (RS(0), RS(5), RS(10), RS(N) per model x
// strategy with 95% bootstrap intervals, coverage and thresholds), and per
// model with a calibrated strategy ehrsql_risk_coverage_<model>.svg (RS(c)
// and coverage on the calibration split against each threshold). It
// returns the files written.
func WriteReport(out string, runs []*RunReport) ([]string, error) {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var results []*Result
	var cals []*Calibration
	for _, r := range runs {
		results = append(results, r.Results...)
		cals = append(cals, r.Calibrations...)
	}
	var files []string
	write := func(name string, b []byte) error {
		p := filepath.Join(out, name)
		files = append(files, p)
		return atomicfile.Write(p, b)
	}
	if err := write("ehrsql.md", reportMarkdown(results, cals)); err != nil {
		return nil, err
	}
	if err := write("ehrsql.csv", reportCSV(results)); err != nil {
		return nil, err
	}
	for _, c := range cals {
		if len(c.Strategies) == 0 {
			continue
		}
		if err := write("ehrsql_risk_coverage_"+c.Model+".svg", riskCoverageSVG(c)); err != nil {
			return nil, err
		}
	}
	return files, nil
}

func ci(r *Result, key string) string {
	iv, ok := r.Intervals[key]
	if !ok {
		return ""
	}
	return fmt.Sprintf(" [%.2f, %.2f]", iv[0], iv[1])
}

func reportMarkdown(results []*Result, cals []*Calibration) []byte {
	var b bytes.Buffer
	b.WriteString("# EHRSQL 2024: reliability per model and abstention strategy\n\n")
	b.WriteString("RS(c) x 100 (official scoring: +1 correct or abstained unanswerable, 0 abstained answerable, -c otherwise), " +
		"95% percentile bootstrap intervals over questions. Thresholds were chosen on the calibration split and applied unchanged.\n\n")
	b.WriteString("| model | strategy | split | n | coverage | RS(0) | RS(5) | RS(10) | RS(N) | thresholds |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, r := range results {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %.1f%% | %.2f%s | %.2f%s | %.2f%s | %.2f%s | %s |\n", r.Model, r.Strategy, r.Split, r.Scores.N,
			100*r.Coverage, r.Scores.RS0, ci(r, "rs0"), r.Scores.RS5, ci(r, "rs5"), r.Scores.RS10, ci(r, "rs10"), r.Scores.RSN, ci(r, "rsN"), thresholdText(r))
	}
	if len(cals) > 0 {
		b.WriteString("\n## Calibration\n\n| model | strategy | calibration split | n | maximised | thresholds | RS on it |\n|---|---|---|---:|---|---|---:|\n")
		for _, c := range cals {
			for _, n := range c.names() {
				s := c.Strategies[n]
				fmt.Fprintf(&b, "| %s | %s | %s | %d | RS(%g) | %s | %.2f |\n", c.Model, n, c.Split, c.Items, c.Penalty,
					thresholdsOf(s.Thresholds), rsAt(s, c.Penalty))
			}
		}
	}
	return b.Bytes()
}

func rsAt(s *Calibrated, c float64) float64 {
	switch c {
	case 0:
		return s.Scores.RS0
	case 5:
		return s.Scores.RS5
	case 10:
		return s.Scores.RS10
	}
	n := float64(s.Scores.N)
	if n == 0 {
		return 0
	}
	return (float64(s.Scores.Correct+s.Scores.AbstainedUnanswerable) - c*float64(s.Scores.Penalized())) / n * 100
}

func thresholdsOf(th Thresholds) string {
	var parts []string
	if th.Logprob != nil {
		parts = append(parts, fmt.Sprintf("mean logprob >= %.4g", *th.Logprob))
	}
	if th.Agreement != nil {
		parts = append(parts, fmt.Sprintf("agreement >= %.3g", *th.Agreement))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

func thresholdText(r *Result) string {
	s := thresholdsOf(r.Thresholds)
	if r.CalibrationSplit != "" {
		s += " (from " + r.CalibrationSplit + ")"
	}
	return s
}

func reportCSV(results []*Result) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"model", "strategy", "split", "n", "coverage", "rs0", "rs0_lo", "rs0_hi", "rs5", "rs5_lo", "rs5_hi",
		"rs10", "rs10_lo", "rs10_hi", "rsN", "rsN_lo", "rsN_hi", "correct", "wrong", "error", "abstained_answerable",
		"answered_unanswerable", "abstained_unanswerable", "logprob_threshold", "agreement_threshold", "calibration_split"})
	f := func(x float64) string { return fmt.Sprintf("%.6f", x) }
	opt := func(x *float64) string {
		if x == nil {
			return ""
		}
		return f(*x)
	}
	for _, r := range results {
		row := []string{r.Model, r.Strategy, r.Split, fmt.Sprint(r.Scores.N), f(r.Coverage)}
		for _, k := range []struct {
			key string
			v   float64
		}{{"rs0", r.Scores.RS0}, {"rs5", r.Scores.RS5}, {"rs10", r.Scores.RS10}, {"rsN", r.Scores.RSN}} {
			iv := r.Intervals[k.key]
			row = append(row, f(k.v), f(iv[0]), f(iv[1]))
		}
		c := r.Scores.Counts
		row = append(row, fmt.Sprint(c.Correct), fmt.Sprint(c.Wrong), fmt.Sprint(c.Error), fmt.Sprint(c.AbstainedAnswerable),
			fmt.Sprint(c.AnsweredUnanswerable), fmt.Sprint(c.AbstainedUnanswerable), opt(r.Thresholds.Logprob), opt(r.Thresholds.Agreement), r.CalibrationSplit)
		w.Write(row)
	}
	w.Flush()
	return b.Bytes()
}

// riskCoverageSVG draws, per calibrated threshold, RS(c) (solid) and
// coverage (dashed) on the calibration split against the threshold, one
// panel per strategy and step, the chosen threshold marked.
func riskCoverageSVG(c *Calibration) []byte {
	type panel struct {
		title  string
		points []CurvePoint
		chosen *float64
	}
	var panels []panel
	for _, n := range c.names() {
		s := c.Strategies[n]
		for _, step := range []Step{StepLogprob, StepConsistency} {
			var pts []CurvePoint
			for _, p := range s.Curve {
				if p.Step == step {
					pts = append(pts, p)
				}
			}
			if len(pts) == 0 {
				continue
			}
			chosen := s.Thresholds.Logprob
			if step == StepConsistency {
				chosen = s.Thresholds.Agreement
			}
			panels = append(panels, panel{fmt.Sprintf("%s: %s threshold", n, step), pts, chosen})
		}
	}
	const w, ph, left, top, plotW, plotH = 640.0, 220.0, 60.0, 30.0, 520.0, 150.0
	height := 30 + ph*float64(len(panels))
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, height)
	fmt.Fprintf(&b, `<text x="10" y="18" font-size="13">%s: RS(%g) (solid) and coverage (dashed) on %s against the threshold</text>`+"\n",
		html.EscapeString(c.Model), c.Penalty, html.EscapeString(c.Split))
	for i, p := range panels {
		y0 := 30 + ph*float64(i)
		xmin, xmax := p.points[0].Threshold, p.points[len(p.points)-1].Threshold
		rmin, rmax := math.Inf(1), math.Inf(-1)
		for _, q := range p.points {
			rmin, rmax = min(rmin, q.RS), max(rmax, q.RS)
		}
		rmax = max(rmax, 100)
		if xmax == xmin {
			xmax = xmin + 1
		}
		if rmax == rmin {
			rmin = rmax - 1
		}
		x := func(v float64) float64 { return left + (v-xmin)/(xmax-xmin)*plotW }
		yr := func(v float64) float64 { return y0 + top + (rmax-v)/(rmax-rmin)*plotH }
		yc := func(v float64) float64 { return y0 + top + (1-v)*plotH }
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="12">%s</text>`+"\n", left, y0+18, html.EscapeString(p.title))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="none" stroke="#999"/>`+"\n", left, y0+top, plotW, plotH)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%.0f</text><text x="%.1f" y="%.1f" text-anchor="end">%.0f</text>`+"\n",
			left-4, y0+top+10, rmax, left-4, y0+top+plotH, rmin)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%.3g</text><text x="%.1f" y="%.1f" text-anchor="end">%.3g</text>`+"\n",
			left, y0+top+plotH+14, xmin, left+plotW, y0+top+plotH+14, xmax)
		var rs, cov []string
		for _, q := range p.points {
			rs = append(rs, fmt.Sprintf("%.1f,%.1f", x(q.Threshold), yr(q.RS)))
			cov = append(cov, fmt.Sprintf("%.1f,%.1f", x(q.Threshold), yc(q.Coverage)))
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="#1f77b4" stroke-width="1.5" points="%s"/>`+"\n", strings.Join(rs, " "))
		fmt.Fprintf(&b, `<polyline fill="none" stroke="#ff7f0e" stroke-width="1.5" stroke-dasharray="4 3" points="%s"/>`+"\n", strings.Join(cov, " "))
		if p.chosen != nil {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#2ca02c"/><text x="%.1f" y="%.1f" fill="#2ca02c">chosen %.4g</text>`+"\n",
				x(*p.chosen), y0+top, x(*p.chosen), y0+top+plotH, x(*p.chosen)+3, y0+top+12, *p.chosen)
		}
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// names are the calibrated strategies in name order.
func (c *Calibration) names() []string {
	return slices.Sorted(maps.Keys(c.Strategies))
}
