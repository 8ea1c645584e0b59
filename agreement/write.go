package agreement

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
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
		res := "unknown"
		if it.ResultKnown {
			res = map[bool]string{true: "yes", false: "no"}[it.Result]
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", it.Model, it.Task, it.Tree, it.Leaf, it.Kind, res,
			it.A.Status, it.A.Source, it.B.Status, it.B.Source, oneLine(it.A.Explanation), oneLine(it.B.Explanation))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// The files WriteFiles writes.
const (
	SlicesFile        = "agreement.tsv"
	DisagreementsFile = "disagreements.tsv"
)

// WriteFiles writes dir/agreement.tsv (WriteSlicesTSV) and
// dir/disagreements.tsv (WriteDisagreementsTSV), each atomically.
func (r *Report) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer) error{SlicesFile: r.WriteSlicesTSV, DisagreementsFile: r.WriteDisagreementsTSV} {
		var sb strings.Builder
		if err := write(&sb); err != nil {
			return err
		}
		if err := atomicfile.Write(filepath.Join(dir, name), []byte(sb.String())); err != nil {
			return err
		}
	}
	return nil
}
