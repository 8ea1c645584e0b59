package labels

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/shared"
)

// TestValidation: the label set is the committed draw, every leaf
// labelled, with the counts the package documentation states.
func TestValidation(t *testing.T) {
	set, err := Validation()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("..", "..", "agreement", "labelsample", "draw", "validation.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	draw, err := labelset.Read(f, "draw", labelset.ReadOptions{Template: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(set) != len(draw) {
		t.Fatalf("%d labels, the draw has %d leaves", len(set), len(draw))
	}
	for i := range set {
		l, d := set[i], draw[i]
		if l.LeafKey() != d.LeafKey() || l.Card != d.Card || l.Chosen != d.Chosen || l.Seed != d.Seed || l.Stratum != d.Stratum ||
			l.Population != d.Population || l.Drawn != d.Drawn {
			t.Errorf("line %d: %s (card %s, %s) is not the draw's %s (card %s, %s)", i+1, l.LeafKey(), l.Card, l.Stratum, d.LeafKey(), d.Card, d.Stratum)
		}
	}
	labels, chosen := map[string]int{}, map[string]int{}
	for _, l := range set {
		labels[l.Label]++
		chosen[l.Chosen]++
	}
	want := map[string]int{labelset.Pass: 811, labelset.Fail: 298, labelset.Arguable: 11,
		labelset.Disagreement: 560, labelset.Agreement: 320, labelset.LLMOnly: 240}
	for k, n := range want {
		if got := labels[k] + chosen[k]; got != n {
			t.Errorf("%s: %d, the documentation says %d", k, got, n)
		}
	}
}

// TestSecondLabeller recomputes the inter-labeller figures of the
// adjudication record: against the adjudicated set 159 of 160 agree; with
// the one label the adjudication changed put back (c0147 was pass),
// 158 of 160 and Cohen's kappa 0.967 over pass, fail and arguable.
func TestSecondLabeller(t *testing.T) {
	set, err := Validation()
	if err != nil {
		t.Fatal(err)
	}
	second, err := ValidationSecond()
	if err != nil {
		t.Fatal(err)
	}
	byCard := map[string]labelset.Label{}
	for _, l := range set {
		byCard[l.Card] = l
	}
	var first, adjudicated, other []string
	for _, s := range second {
		l, ok := byCard[s.Card]
		if !ok || l.LeafKey() != s.LeafKey() {
			t.Fatalf("card %s (%s) is not that card of the label set", s.Card, s.LeafKey())
		}
		if s.Label == "" {
			t.Fatalf("card %s: the second labeller left it blank", s.Card)
		}
		firstPass := l.Label
		if s.Card == "c0147" {
			firstPass = labelset.Pass // the adjudication changed it to fail
		}
		first, adjudicated, other = append(first, firstPass), append(adjudicated, l.Label), append(other, s.Label)
	}
	if len(second) != 160 {
		t.Errorf("%d leaves relabelled, want 160", len(second))
	}
	agree := func(a, b []string) (n int, differ []string) {
		for i := range a {
			if a[i] == b[i] {
				n++
			} else {
				differ = append(differ, second[i].Card)
			}
		}
		return n, differ
	}
	if n, d := agree(adjudicated, other); n != 159 || len(d) != 1 || d[0] != "c0726" {
		t.Errorf("adjudicated vs second: %d agree (differ: %v), want 159 (c0726)", n, d)
	}
	n, d := agree(first, other)
	if n != 158 {
		t.Errorf("first pass vs second: %d agree (differ: %v), want 158", n, d)
	}
	if k := kappa(first, other); k < 0.9665 || k >= 0.9675 {
		t.Errorf("kappa %.4f, the record says 0.967", k)
	}
}

// kappa is Cohen's kappa of two raters over any categories.
func kappa(a, b []string) float64 {
	n := float64(len(a))
	ca, cb := map[string]float64{}, map[string]float64{}
	var po float64
	for i := range a {
		ca[a[i]]++
		cb[b[i]]++
		if a[i] == b[i] {
			po++
		}
	}
	po /= n
	var pe float64
	for k, x := range ca {
		pe += x * cb[k] / (n * n)
	}
	return (po - pe) / (1 - pe)
}

// TestOwnWords: no rationale of either file repeats CopyRun words of its
// leaf's rubric texts or the question (the set holds no rubric text).
func TestOwnWords(t *testing.T) {
	tasks, err := datasets.LoadClinSQL(shared.Path(t, "clinsql-data", "data", "splits", "validation"))
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[datasets.Key]*datasets.Task{}
	for _, tk := range tasks {
		byKey[tk.Key] = tk
	}
	for name, read := range map[string]func() ([]labelset.Label, error){ValidationFile: Validation, ValidationSecondFile: ValidationSecond} {
		set, err := read()
		if err != nil {
			t.Fatal(err)
		}
		for i := range set {
			l := &set[i]
			tk := byKey[l.Key]
			if tk == nil {
				t.Errorf("%s:%d: no task %s", name, i+1, l.Key)
				continue
			}
			if err := labelset.OwnWords(tk, l); err != nil {
				t.Errorf("%s:%d (card %s): %v", name, i+1, l.Card, err)
			}
		}
	}
}
