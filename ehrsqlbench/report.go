package ehrsqlbench

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/clinsql/clinsql/internal/atomicfile"
	"github.com/clinsql/clinsql/reports"
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

// WriteReport writes the EHRSQL section's tables into out: ehrsql.md and
// ehrsql.csv (RS(0), RS(5), RS(10), RS(N) per model x strategy with 95%
// bootstrap intervals, coverage and thresholds). The charts and the
// drill-down are report.html's (Section). It returns the files written.
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
	return files, nil
}

// Section reads the runs' EHRSQL section for a report (report.html and
// its figures): each model x strategy's scores, curve and decisions, and
// each model's calibration.
func Section(runs []*RunReport) (*reports.EHRSQL, error) {
	sec := &reports.EHRSQL{Penalty: DefaultPenalty}
	for _, run := range runs {
		sec.Runs = append(sec.Runs, run.Dir)
		l := Layout{Root: run.Dir}
		for _, r := range run.Results {
			res := &reports.EHRSQLResult{Model: r.Model, Strategy: r.Strategy, Split: r.Split, Coverage: r.Coverage, Scores: r.Scores,
				Intervals: r.Intervals, Thresholds: thresholdsOf(r.Thresholds), Chosen: chosen(r.Thresholds), CalibrationSplit: r.CalibrationSplit}
			for _, p := range r.Curve {
				res.Curve = append(res.Curve, reports.EHRSQLPoint{Step: string(p.Step), Threshold: p.Threshold, Answered: p.Answered, Counts: p.Counts})
			}
			var decs []Decision
			ok, err := readJSON(l.Decisions(r.Model, r.Split, r.Strategy), &decs)
			switch {
			case err != nil:
				return nil, err
			case !ok:
				res.ItemsNote = l.Decisions(r.Model, r.Split, r.Strategy) + " is missing"
			default:
				for _, d := range decs {
					if d.Outcome == "" {
						res.Items, res.ItemsNote = nil, "its decisions.json was written before clinsql recorded each decision's outcome: run the same clinsql generate --benchmark ehrsql again (the answers come from the cache) to record them"
						break
					}
					res.Items = append(res.Items, reports.EHRSQLItem{ID: d.ID, Question: d.Question, Gold: d.Gold, Prediction: d.Prediction,
						Abstained: d.Abstained, Step: string(d.Step), Reason: d.Reason, Outcome: d.Outcome})
				}
			}
			sec.Results = append(sec.Results, res)
		}
		for _, c := range run.Calibrations {
			if c.Penalty > 0 {
				sec.Penalty = c.Penalty
			}
			rc := &reports.EHRSQLCalibration{Model: c.Model, Split: c.Split, Items: c.Items, Penalty: c.Penalty}
			for _, n := range c.names() {
				s := c.Strategies[n]
				cs := reports.EHRSQLCalibrated{Strategy: n, Chosen: chosen(s.Thresholds), RS: rsAt(s, c.Penalty)}
				for _, p := range s.Curve {
					cs.Curve = append(cs.Curve, reports.EHRSQLCalPoint{Step: string(p.Step), Threshold: p.Threshold, RS: p.RS, Coverage: p.Coverage})
				}
				rc.Strategies = append(rc.Strategies, cs)
			}
			sec.Calibrations = append(sec.Calibrations, rc)
		}
	}
	return sec, nil
}

// chosen gives the thresholds by step name.
func chosen(th Thresholds) map[string]float64 {
	out := map[string]float64{}
	if th.Logprob != nil {
		out[string(StepLogprob)] = *th.Logprob
	}
	if th.Agreement != nil {
		out[string(StepConsistency)] = *th.Agreement
	}
	return out
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

// names are the calibrated strategies in name order.
func (c *Calibration) names() []string {
	return slices.Sorted(maps.Keys(c.Strategies))
}
