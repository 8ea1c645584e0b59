package agreement

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/clinsql/clinsql/internal/atomicfile"
)

// WriteTable prints the slices as an aligned table: all answers first,
// then answers with a result.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "answers\tslice\tpairs\traw\tkappa\t95% interval\tboth pass\tboth fail\tA pass B fail\tA fail B pass\tunpaired\t")
	for _, s := range r.Slices {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.3f\t%.3f\t%s\t%d\t%d\t%d\t%d\t%d\t\n", answers(s.WithResult), s.Name, s.Total(), s.Raw(),
			noNegZero(s.Kappa.Kappa), interval(s.Kappa), s.N[1][1], s.N[0][0], s.N[1][0], s.N[0][1], s.Unpaired)
	}
	return tw.Flush()
}

func answers(withResult bool) string {
	if withResult {
		return "with result"
	}
	return "all"
}

func interval(iv Interval) string {
	if iv.Lo != iv.Lo { // NaN: no pairs
		return "-"
	}
	return fmt.Sprintf("[%.3f, %.3f]", noNegZero(iv.Lo), noNegZero(iv.Hi))
}

// noNegZero prints a kappa that rounds to 0 as 0, not -0: a kappa of 0
// computed as -1e-17 is not negative.
func noNegZero(f float64) float64 {
	if math.Abs(f) < 5e-5 {
		return 0
	}
	return f
}

// WriteSlicesTSV writes the slices as TSV with a header row.
func (r *Report) WriteSlicesTSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("answers\tslice\tpairs\traw\tkappa\tkappa_lo\tkappa_hi\tboth_pass\tboth_fail\ta_pass_b_fail\ta_fail_b_pass\tunpaired\ttasks\n")
	for _, s := range r.Slices {
		fmt.Fprintf(&b, "%s\t%s\t%d\t%.4f\t%.4f\t%.4f\t%.4f\t%d\t%d\t%d\t%d\t%d\t%d\n", answers(s.WithResult), s.Name, s.Total(), s.Raw(),
			noNegZero(s.Kappa.Kappa), noNegZero(s.Kappa.Lo), noNegZero(s.Kappa.Hi), s.N[1][1], s.N[0][0], s.N[1][0], s.N[0][1], s.Unpaired, s.Tasks)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteDisagreementsTSV writes every disagreement with both verdicts,
// sources and explanations (tabs and line breaks in explanations become
// spaces).
func (r *Report) WriteDisagreementsTSV(w io.Writer) error {
	var b strings.Builder
	b.WriteString("model\ttask\ttree\tleaf\tkind\tresult\ta\ta_source\tb\tb_source\ta_explanation\tb_explanation\n")
	for _, it := range r.Disagreements {
		res := resultWord(it)
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", it.Model, it.Task, it.Tree, it.Leaf, it.Kind, res,
			it.A.Status, it.A.Source, it.B.Status, it.B.Source, oneLine(it.A.Explanation), oneLine(it.B.Explanation))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// WriteTable prints the judge's accuracy per slice as an aligned table:
// error rate, false pass and false fail shares, precision and recall of
// fail, each with its 95% Wilson interval, and the error rate weighted to
// the population the labels were drawn from.
func (r *LabelReport) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "answers\tslice\tlabelled\targuable\tundecided\tdecided\twrong\terror rate\tfalse pass\tfalse fail\tfail precision\tfail recall\tweighted error\t")
	for i := range r.Slices {
		s := &r.Slices[i]
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Answers, s.Name, s.Labelled, s.Arguable, s.Undecided,
			s.Decided(), s.FalsePass+s.FalseFail, pct(s.Errors()), pct(s.FalsePassRate()), pct(s.FalseFailRate()),
			pct(s.FailPrecision()), pct(s.FailRecall()), pct(s.Weighted))
	}
	return tw.Flush()
}

// pct prints a rate as a percentage with its interval, "-" without a
// denominator.
func pct(r Rate) string {
	if r.N == 0 || r.P != r.P {
		return "-"
	}
	return fmt.Sprintf("%.1f%% [%.1f, %.1f]", 100*r.P, 100*r.Lo, 100*r.Hi)
}

// WriteAccuracyTSV writes the reports' slices as TSV with a header row,
// the judge first; rates are fractions with their Wilson bounds.
func WriteAccuracyTSV(w io.Writer, reps []*LabelReport) error {
	var b strings.Builder
	b.WriteString("judge\tanswers\tslice\tlabelled\targuable\tundecided\tdecided\ttrue_pass\ttrue_fail\tfalse_pass\tfalse_fail\terror_rate\terror_lo\terror_hi\tfalse_pass_rate\tfalse_pass_lo\tfalse_pass_hi\tfalse_fail_rate\tfalse_fail_lo\tfalse_fail_hi\tfail_precision\tfail_precision_lo\tfail_precision_hi\tfail_recall\tfail_recall_lo\tfail_recall_hi\tweighted_error\tweighted_error_lo\tweighted_error_hi\n")
	for _, r := range reps {
		for i := range r.Slices {
			s := &r.Slices[i]
			fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d", oneLine(r.Judge), s.Answers, s.Name, s.Labelled, s.Arguable, s.Undecided, s.Decided(),
				s.TruePass, s.TrueFail, s.FalsePass, s.FalseFail)
			for _, rt := range []Rate{s.Errors(), s.FalsePassRate(), s.FalseFailRate(), s.FailPrecision(), s.FailRecall(), s.Weighted} {
				fmt.Fprintf(&b, "\t%s\t%s\t%s", frac(rt.P), frac(rt.Lo), frac(rt.Hi))
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func frac(f float64) string {
	if f != f {
		return ""
	}
	return fmt.Sprintf("%.4f", f)
}

// WriteWrongTSV writes every leaf a judge decided against its label, the
// judge first, with the judge's explanation and the label's rationale.
func WriteWrongTSV(w io.Writer, reps []*LabelReport) error {
	var b strings.Builder
	b.WriteString("judge\tmodel\ttask\ttree\tleaf\tkind\tresult\tchosen\tjudge\tjudge_source\tlabel\tjudge_explanation\tlabel_rationale\n")
	for _, r := range reps {
		for _, it := range r.Wrong {
			fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", oneLine(r.Judge), it.Model, it.Task, it.Tree, it.Leaf, it.Kind,
				resultWord(it.Item), it.Chosen, it.A.Status, SourceName(it.Item, it.A.Source), it.B.Status, oneLine(it.A.Explanation), oneLine(it.B.Explanation))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func resultWord(it Item) string {
	if !it.ResultKnown {
		return "unknown"
	}
	if it.Result {
		return "yes"
	}
	return "no"
}

// WriteFiles writes the report into dir as agreement.tsv (the slices)
// and disagreements.tsv (every leaf decided differently) and returns
// their paths.
func (r *Report) WriteFiles(dir string) ([]string, error) {
	return writeFiles(dir, map[string]func(io.Writer) error{"agreement.tsv": r.WriteSlicesTSV, "disagreements.tsv": r.WriteDisagreementsTSV})
}

// WriteLabelFiles writes the judges' accuracy against labels into dir as
// accuracy.tsv and wrong.tsv (every leaf decided against its label) and
// returns their paths.
func WriteLabelFiles(dir string, reps []*LabelReport) ([]string, error) {
	return writeFiles(dir, map[string]func(io.Writer) error{
		"accuracy.tsv": func(w io.Writer) error { return WriteAccuracyTSV(w, reps) },
		"wrong.tsv":    func(w io.Writer) error { return WriteWrongTSV(w, reps) },
	})
}

// writeFiles writes each named file into dir atomically, in name order.
func writeFiles(dir string, files map[string]func(io.Writer) error) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, name := range slices.Sorted(maps.Keys(files)) {
		var b bytes.Buffer
		if err := files[name](&b); err != nil {
			return nil, err
		}
		path := filepath.Join(dir, name)
		if err := atomicfile.Write(path, b.Bytes()); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}
