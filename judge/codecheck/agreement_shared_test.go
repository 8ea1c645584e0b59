package codecheck

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/agreement"
	"github.com/clinsql/clinsql/internal/released"
	"github.com/clinsql/clinsql/rubric"
	"github.com/clinsql/clinsql/scoring"
)

// TestAgreementWithRecorded is the code checks' acceptance measurement on
// the released models' validation outputs: the share of results-rubric
// leaves code decides, and the agreement of those decisions with the
// recorded judge, computed by package agreement (what clinsql agree
// prints): raw and Cohen's kappa with bootstrap intervals over tasks,
// overall and per leaf kind, over all answers and over answers with a
// result. Every disagreement is written to testdata/out/disagreements.tsv,
// the table to testdata/out/agreement.tsv, and a random sample (fixed seed)
// of 40 disagreements on answers with a result, with the leaf's text and
// the result's columns, to testdata/out/sample40.tsv (none committed).
func TestAgreementWithRecorded(t *testing.T) {
	tasks, models := released.Load(t)
	type cov struct{ decided, total int }
	cover := map[LeafKind]*cov{}
	var all, withResult cov
	var items []agreement.Item
	context := map[string]string{} // model, task, leaf -> leaf text, parent text, columns
	for _, m := range models {
		for _, o := range m.Outputs {
			task := tasks[o.Key]
			if task == nil {
				t.Fatalf("%s: no task %s", m.Name, o.Key)
			}
			e, graded := m.ByKey[o.Key]
			a := LoadAnswer(o, task.Question)
			for _, leaf := range task.ResultsRubric.Root.Leaves() {
				d := Check(leaf, a)
				c := cover[d.Kind]
				if c == nil {
					c = &cov{}
					cover[d.Kind] = c
				}
				for _, c := range []*cov{c, &all} {
					c.total++
					if d.Decided {
						c.decided++
					}
				}
				if a.HasResult() {
					withResult.total++
					if d.Decided {
						withResult.decided++
					}
				}
				if !d.Decided {
					continue
				}
				it := agreement.Item{Model: m.Name, Task: o.Key.String(), Tree: "results", Leaf: leaf.ID, Kind: string(d.Kind),
					Result: a.HasResult(), ResultKnown: true,
					A: agreement.Verdict{Status: passFail(d.Pass), Source: "code", Explanation: d.Explanation},
					B: agreement.Verdict{Status: agreement.Missing, Source: "recorded"}}
				if r, ok := e.ResultsEvaluations[leaf.ID]; graded && ok {
					v, _, _ := scoring.Classify(r)
					it.B.Status, it.B.Explanation = v.Status.String(), r.Explanation
				}
				items = append(items, it)
				cols := ""
				if a.Table != nil {
					cols = strings.Join(a.Table.Columns, ",")
				}
				context[m.Name+" "+it.Task+" "+leaf.ID] = oneLine(leaf.Requirements) + "\t" + oneLine(parentText(leaf)) + "\t" + cols
			}
		}
	}
	rep := agreement.Compute(items, agreement.Options{Seed: 16})
	share := float64(all.decided) / float64(all.total)
	resShare := float64(withResult.decided) / float64(withResult.total)
	t.Logf("results-rubric leaves decided by code: %d of %d = %.1f%% (%d models x %d tasks, no skipping)", all.decided, all.total, 100*share, len(models), len(tasks))
	t.Logf("  on answers with a result: %d of %d = %.1f%%", withResult.decided, withResult.total, 100*resShare)
	var kinds []string
	for k := range cover {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		c := cover[LeafKind(k)]
		t.Logf("  %-14s %5d of %5d = %5.1f%%", k, c.decided, c.total, 100*float64(c.decided)/float64(c.total))
	}
	var table strings.Builder
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Logf("agreement of the code decisions with the recorded judge (A: code, B: recorded):\n%s", table.String())

	out := filepath.Join("testdata", "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, f func(w io.Writer) error) {
		var b strings.Builder
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("agreement.tsv", rep.WriteSlicesTSV)
	write("disagreements.tsv", rep.WriteDisagreementsTSV)
	// The sample to adjudicate: 40 disagreements on answers with a result,
	// drawn with a fixed seed.
	var pool []agreement.Item
	for _, it := range rep.Disagreements {
		if it.Result {
			pool = append(pool, it)
		}
	}
	rng := rand.New(rand.NewPCG(16, 40))
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	write("sample40.tsv", func(w io.Writer) error {
		fmt.Fprintln(w, "n\tmodel\ttask\tleaf\tkind\tcode\trecorded\tcode_explanation\tleaf_text\tparent_text\tresult_columns\trecorded_explanation")
		for i, it := range pool[:min(40, len(pool))] {
			fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", i+1, it.Model, it.Task, it.Leaf, it.Kind, it.A.Status, it.B.Status,
				oneLine(it.A.Explanation), context[it.Model+" "+it.Task+" "+it.Leaf], oneLine(it.B.Explanation))
		}
		return nil
	})
	t.Logf("%d disagreements written to %s", len(rep.Disagreements), filepath.Join(out, "disagreements.tsv"))

	// Regression guards at the measured figures (issue 16).
	if share < 0.79 || resShare < 0.66 {
		t.Errorf("code decides %.1f%% of results leaves, %.1f%% on answers with a result; want at least 79%% and 66%%", 100*share, 100*resShare)
	}
	// Column leaves: the recorded judge fails a third of the columns named
	// as an example up to qualifiers and spelling ("mean_los" for
	// "avg_los_days", "patient_count" for "total_patients"), taking the
	// examples for required names; code passes them.
	for k, want := range map[LeafKind]float64{KindColumn: 0.74, KindBand: 0.8} {
		if kap := rep.Slice("kind="+string(k), false).Kappa.Kappa; kap < want {
			t.Errorf("kappa on %s leaves = %.3f, want at least %.2f", k, kap, want)
		}
	}
}

func passFail(b bool) string {
	if b {
		return "pass"
	}
	return "fail"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func parentText(n *rubric.Node) string {
	if n.Parent == nil {
		return ""
	}
	return n.Parent.Requirements
}
