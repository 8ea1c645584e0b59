package ehrsqlbench

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteResults prints one line per model and strategy: coverage, RS(0),
// RS(5), RS(10) with its 95% interval, RS(N) and the thresholds with their
// calibration split.
func WriteResults(w io.Writer, rs []*Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tstrategy\tcoverage\tRS(0)\tRS(5)\tRS(10)\t95% CI\tRS(N)\tthresholds\t")
	for _, r := range rs {
		iv := r.Intervals["rs10"]
		fmt.Fprintf(tw, "%s\t%s\t%.1f%%\t%.2f\t%.2f\t%.2f\t[%.2f, %.2f]\t%.2f\t%s\t\n", r.Model, r.Strategy, 100*r.Coverage,
			r.Scores.RS0, r.Scores.RS5, r.Scores.RS10, iv[0], iv[1], r.Scores.RSN, r.ThresholdsText())
	}
	tw.Flush()
}

// ThresholdsText names the strategy's calibrated thresholds and the split
// they were calibrated on ("-" for none).
func (r *Result) ThresholdsText() string {
	var parts []string
	if t := r.Thresholds.Logprob; t != nil {
		parts = append(parts, fmt.Sprintf("logprob>=%.4g", *t))
	}
	if t := r.Thresholds.Agreement; t != nil {
		parts = append(parts, fmt.Sprintf("agreement>=%.3g", *t))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ") + " (" + r.CalibrationSplit + ")"
}

// WriteEstimates prints the calls, tokens and costs of a run per model and
// strategy.
func WriteEstimates(w io.Writer, es []Estimate) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tstrategy\tquestions\tcalls\tprompt tokens\tcompletion tokens\tcost $\tbatch $\tworst $\t")
	for _, e := range es {
		cost, batch, worst := "-", "-", "-"
		if e.Priced {
			cost, batch, worst = fmt.Sprintf("%.2f", e.CostUSD), fmt.Sprintf("%.2f", e.BatchUSD), fmt.Sprintf("%.2f", e.WorstUSD)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t\n", e.Model, e.Strategy, e.Questions, e.Calls, e.PromptTokens, e.CompletionTokens, cost, batch, worst)
	}
	tw.Flush()
	fmt.Fprintln(w, "a strategy's row is its cost alone; (run) is what the run makes for the model (strategies share answers).")
	fmt.Fprintln(w, "prompt tokens are estimated (4 bytes a token); completions at max_tokens; \"worst\" uses every refinement round;")
	fmt.Fprintln(w, "\"batch\" is the cost through the batch API (mode: batch), at the prices file's batch share")
}
