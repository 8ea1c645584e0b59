package ehrsqlbench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clinsql/clinsql/internal/atomicfile"
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

// WriteText prints the scores as clinsql ehrsql score does: what was
// scored (a subset, the gold source, lenient abstention said first),
// RS(0), RS(5), RS(10) and RS(N), and the items per outcome.
func (out *ScoreOutput) WriteText(w io.Writer) {
	fmt.Fprintf(w, "EHRSQL 2024 reliability: split %s, %d items, predictions %s\n", out.Split, out.N, out.Predictions)
	if out.Subset != "" {
		fmt.Fprintf(w, "SUBSET: %s; not comparable with a score of the whole split\n", out.Subset)
	}
	if out.GoldSource != "labels" {
		fmt.Fprintln(w, "gold results from answer.json (the scoring_v2 variant), not from executing label.json")
	}
	if out.Lenient {
		fmt.Fprintln(w, "lenient abstention: a deviation from the official scorer")
	}
	fmt.Fprintln(w)
	for _, r := range []struct {
		name string
		v    float64
	}{{"RS(0)", out.RS0}, {"RS(5)", out.RS5}, {"RS(10)", out.RS10}, {fmt.Sprintf("RS(N=%d)", out.N), out.RSN}} {
		fmt.Fprintf(w, "%-12s %10.2f\n", r.name, r.v)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-24s %6s  %s\n", "outcome", "items", "score")
	for _, r := range []struct {
		name  string
		n     int
		score string
	}{
		{"correct", out.Correct, "+1"},
		{"wrong", out.Wrong, "-c"},
		{"error", out.Error, "-c"},
		{"abstained answerable", out.AbstainedAnswerable, "0"},
		{"answered unanswerable", out.AnsweredUnanswerable, "-c"},
		{"abstained unanswerable", out.AbstainedUnanswerable, "+1"},
	} {
		fmt.Fprintf(w, "%-24s %6d  %s\n", r.name, r.n, r.score)
	}
}

// WriteFile writes the scores and every item's outcome to path as JSON,
// atomically (an interrupted run never leaves half a file).
func (out *ScoreOutput) WriteFile(path string) error {
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, append(b, '\n'))
}
