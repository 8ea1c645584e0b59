package labelcard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets"
)

func TestBatches(t *testing.T) {
	var labels []labelset.Label
	// answers of 3, 1, 2, 2 cards; batches of 4.
	for i, n := range []int{3, 1, 2, 2} {
		for j := range n {
			labels = append(labels, labelset.Label{Key: datasets.Key{ID: string(rune('a' + i))}, Model: "m", Leaf: string(rune('0' + j))})
		}
	}
	var sizes []int
	for _, b := range Batches(labels, 4) {
		sizes = append(sizes, len(b))
	}
	if len(sizes) != 2 || sizes[0] != 4 || sizes[1] != 4 {
		t.Errorf("batch sizes %v, want [4 4]", sizes)
	}
	sizes = nil
	for _, b := range Batches(labels, 2) {
		sizes = append(sizes, len(b))
	}
	// An answer larger than a batch stays whole.
	if want := []int{3, 1, 2, 2}; !slices.Equal(sizes, want) {
		t.Errorf("batch sizes %v, want %v", sizes, want)
	}
}

type fixedSource map[string]Entry

func (s fixedSource) Entry(l labelset.Label) (Entry, error) {
	e := s[l.Card]
	e.Label = l
	return e, nil
}

func TestWriteBatches(t *testing.T) {
	task := fixtureTask(t)
	o := answer(t, task, "SELECT 7 AS p75_procedures;", true, "", "p75_procedures\n7\n")
	l1 := label(task, labelset.TreeResults, "acceptable-range")
	l1.Card, l1.Chosen, l1.Seed, l1.Stratum, l1.Population, l1.Drawn = "c0001", labelset.Disagreement, 27, "disagreement/band/m", 9, 3
	l2 := l1
	l2.Leaf, l2.Card = "csv-file-exists", "c0002"
	dir := t.TempDir()
	// A labeller's file is never touched.
	if err := os.MkdirAll(filepath.Join(dir, "batch-01"), 0o755); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "batch-01", "labels.jsonl")
	if err := os.WriteFile(mine, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := fixedSource{"c0001": {Task: task, Output: o}, "c0002": {Task: task, Output: o}}
	counts, err := WriteBatches(dir, []labelset.Label{l1, l2}, src, DefaultBounds)
	if err != nil {
		t.Fatal(err)
	}
	if len(counts) != 1 || counts[0] != 2 {
		t.Fatalf("counts %v", counts)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine\n" {
		t.Errorf("labels.jsonl rewritten: %q", b)
	}
	for _, f := range []string{"c0001.md", "c0002.md"} {
		if _, err := os.Stat(filepath.Join(dir, "batch-01", f)); err != nil {
			t.Error(err)
		}
	}
	m, err := os.ReadFile(filepath.Join(dir, "batch-01", "manifest.tsv"))
	if err != nil || !strings.Contains(string(m), "c0002\tvalidation\tDiagnostic_Procedures\teasy\t001\tmodel-under-test\tresults\tcsv-file-exists\n") {
		t.Errorf("manifest %q %v", m, err)
	}
	f, err := os.Open(filepath.Join(dir, "batch-01", "template.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tmpl, err := labelset.Read(f, "template.jsonl", labelset.ReadOptions{Template: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(tmpl) != 2 || !tmpl[0].Blind() || tmpl[0].Card != "c0001" || tmpl[0].Label != "" || tmpl[1].LeafKey() != l2.LeafKey() {
		t.Errorf("template %+v", tmpl)
	}
	if s := Instructions(counts); !strings.Contains(s, "2 cards in 1 batches") {
		t.Errorf("instructions: %s", s)
	}
}
