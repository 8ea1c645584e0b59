package labelsample

import (
	"fmt"
	"slices"
	"testing"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
)

func TestShare(t *testing.T) {
	for _, c := range []struct {
		n       int
		caps    []int
		weights []float64
		want    []int
	}{
		{10, []int{100, 100}, []float64{1, 1}, []int{5, 5}},
		{11, []int{100, 100}, []float64{1, 1}, []int{6, 5}},                              // ties to the earlier group
		{560, []int{849, 852, 136, 95}, []float64{1, 1, 1, 1}, []int{165, 164, 136, 95}}, // water-filling
		{10, []int{3, 2}, []float64{1, 1}, []int{3, 2}},                                  // caps below n: drawn whole
		{9, []int{30, 60}, []float64{30, 60}, []int{3, 6}},                               // proportional
		{240, []int{37099, 2657, 2596, 192, 615}, []float64{4, 1, 1, 1, 1}, []int{120, 30, 30, 30, 30}},
		{0, []int{5}, []float64{1}, []int{0}},
		{5, []int{0, 9}, []float64{1, 1}, []int{0, 5}},
	} {
		got := share(c.n, c.caps, c.weights)
		if !slices.Equal(got, c.want) {
			t.Errorf("share(%d, %v, %v) = %v, want %v", c.n, c.caps, c.weights, got, c.want)
		}
		sum := 0
		for i, g := range got {
			sum += g
			if g > c.caps[i] {
				t.Errorf("share(%d, %v): group %d gets %d over its cap", c.n, c.caps, i, g)
			}
		}
		total := 0
		for _, x := range c.caps {
			total += x
		}
		if sum != min(c.n, total) {
			t.Errorf("share(%d, %v) sums to %d", c.n, c.caps, sum)
		}
	}
}

// candidates builds n candidates of one class and kind for a model.
func candidates(model, kind, code, recorded string, tree string, n int) []Candidate {
	var out []Candidate
	for i := range n {
		out = append(out, Candidate{
			LeafKey: labelset.LeafKey{Task: datasets.Key{Split: "validation", Domain: "Diagnostic_Procedures", Difficulty: "easy", ID: fmt.Sprintf("%03d", i%100+1)},
				Model: model, Tree: tree, Leaf: fmt.Sprintf("%s-%d", kind, i)},
			Kind: kind, Code: code, Recorded: recorded, Result: true,
		})
	}
	return out
}

func population() []Candidate {
	var cands []Candidate
	for _, m := range []string{"model-a", "model-b"} {
		k := 1
		if m == "model-b" {
			k = 3
		}
		cands = append(cands, candidates(m, "band", "pass", "fail", labelset.TreeResults, 40*k)...)
		cands = append(cands, candidates(m, "csv_exists", "pass", "fail", labelset.TreeResults, 2)...)
		cands = append(cands, candidates(m, "column_exists", "fail", "fail", labelset.TreeResults, 30*k)...)
		cands = append(cands, candidates(m, "column_exists", "pass", "pass", labelset.TreeResults, 30)...)
		cands = append(cands, candidates(m, "band", "", "pass", labelset.TreeResults, 20)...)
		cands = append(cands, candidates(m, "sql", "", "fail", labelset.TreeSQL, 100)...)
		// Not drawn: undecided by the recorded judge, and no result.
		cands = append(cands, candidates(m, "band", "pass", "", labelset.TreeResults, 5)...)
		noResult := candidates(m, "other", "fail", "pass", labelset.TreeResults, 5)
		for i := range noResult {
			noResult[i].Result = false
		}
		cands = append(cands, noResult...)
	}
	return cands
}

func TestDraw(t *testing.T) {
	plan := Plan{Seed: 1, Disagreements: 20, Agreements: 12, LLMOnly: 16}
	labels, strata := Draw(population(), plan)
	count := map[string]int{}
	for _, l := range labels {
		if f, msg := l.Check(true); msg != "" {
			t.Fatalf("%s: field %s: %s", l.LeafKey(), f, msg)
		}
		count[l.Stratum]++
	}
	want := map[string]int{
		// disagreement: csv 4 (whole), band the other 16, split 1:3.
		"disagreement/csv_exists/model-a": 2, "disagreement/csv_exists/model-b": 2,
		"disagreement/band/model-a": 4, "disagreement/band/model-b": 12,
		// agreement: column/fail and column/pass, 6 each; fail 1:3.
		"agreement/column_exists/fail/model-a": 2, "agreement/column_exists/fail/model-b": 4,
		"agreement/column_exists/pass/model-a": 3, "agreement/column_exists/pass/model-b": 3,
		// llm-only: sql half, band half.
		"llm-only/sql/model-a": 4, "llm-only/sql/model-b": 4,
		"llm-only/band/model-a": 4, "llm-only/band/model-b": 4,
	}
	for s, n := range want {
		if count[s] != n {
			t.Errorf("%s: %d drawn, want %d", s, count[s], n)
		}
	}
	if len(count) != len(want) {
		t.Errorf("strata drawn: %v", count)
	}
	for _, s := range strata {
		if s.Drawn != count[s.Name] || s.Population < s.Drawn {
			t.Errorf("stratum %+v, %d labels", s, count[s.Name])
		}
	}
	for _, l := range labels {
		for _, s := range strata {
			if s.Name == l.Stratum && (s.Population != l.Population || s.Drawn != l.Drawn) {
				t.Errorf("%s: population %d drawn %d, stratum says %d %d", l.LeafKey(), l.Population, l.Drawn, s.Population, s.Drawn)
			}
		}
	}

	// Reproducible; another seed draws otherwise; a stratum's draw does
	// not depend on the others.
	again, _ := Draw(population(), plan)
	if !slices.Equal(labels, again) {
		t.Error("the same plan drew differently")
	}
	other, _ := Draw(population(), Plan{Seed: 2, Disagreements: 20, Agreements: 12, LLMOnly: 16})
	if slices.Equal(labels, other) {
		t.Error("another seed drew the same")
	}
	more := append(population(), candidates("model-c", "sql", "", "pass", labelset.TreeSQL, 1000)...)
	withMore, _ := Draw(more, plan)
	if a, b := only(labels, "disagreement/band/model-b"), only(withMore, "disagreement/band/model-b"); !slices.Equal(a, b) {
		t.Errorf("a stratum's draw changed with another class's candidates:\n%v\n%v", a, b)
	}
}

func only(labels []labelset.Label, stratum string) []labelset.Label {
	var out []labelset.Label
	for _, l := range labels {
		if l.Stratum == stratum {
			out = append(out, l)
		}
	}
	return out
}

func TestOrder(t *testing.T) {
	labels, _ := Draw(population(), Plan{Seed: 1, Disagreements: 20, Agreements: 12, LLMOnly: 16})
	cards := Order(labels, 1)
	if len(cards) != len(labels) {
		t.Fatalf("%d cards of %d labels", len(cards), len(labels))
	}
	closed := map[string]bool{}
	prev := ""
	for i, c := range cards {
		if want := fmt.Sprintf("c%04d", i+1); c.Card != want {
			t.Errorf("card %d is %s", i, c.Card)
		}
		a := c.Model + " " + c.Key.String()
		if a != prev {
			if closed[a] {
				t.Errorf("the cards of %s are not together", a)
			}
			closed[prev] = true
			prev = a
		}
	}
	if !slices.Equal(cards, Order(labels, 1)) {
		t.Error("Order is not reproducible")
	}
}
