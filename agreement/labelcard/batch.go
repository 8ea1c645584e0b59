package labelcard

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/internal/atomicfile"
)

// BatchSize is the number of cards a batch aims at: an answer's cards are
// never split, so a batch may hold a few more or fewer.
const BatchSize = 60

// Batches splits labels, in card order, into batches of about size
// cards: a batch closes before an answer whose cards would take it past
// size.
func Batches(labels []labelset.Label, size int) [][]labelset.Label {
	var out [][]labelset.Label
	var cur []labelset.Label
	for i := 0; i < len(labels); {
		j := i + 1
		for j < len(labels) && labels[j].Model == labels[i].Model && labels[j].Key == labels[i].Key {
			j++
		}
		if len(cur) > 0 && len(cur)+j-i > size {
			out = append(out, cur)
			cur = nil
		}
		cur = append(cur, labels[i:j]...)
		i = j
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// Source finds a card's task and answer.
type Source interface {
	Entry(l labelset.Label) (Entry, error)
}

// BatchName is the folder of batch i (from 0): batch-01, ...
func BatchName(i int) string { return fmt.Sprintf("batch-%02d", i+1) }

// WriteBatches renders every card into dir/batch-NN/<card>.md with the
// batch's manifest.tsv and template.jsonl. It writes only these files: a
// labeller's labels.jsonl beside them is never touched. It returns the
// number of cards per batch.
func WriteBatches(dir string, labels []labelset.Label, src Source, b Bounds) ([]int, error) {
	var counts []int
	for i, batch := range Batches(labels, BatchSize) {
		bdir := filepath.Join(dir, BatchName(i))
		if err := os.MkdirAll(bdir, 0o755); err != nil {
			return nil, err
		}
		var manifest bytes.Buffer
		manifest.WriteString("card\tsplit\tdomain\tdifficulty\tid\tmodel\ttree\tleaf\n")
		template := make([]labelset.Label, 0, len(batch))
		for _, l := range batch {
			e, err := src.Entry(l)
			if err != nil {
				return nil, err
			}
			var card bytes.Buffer
			if err := Render(&card, e, b); err != nil {
				return nil, err
			}
			if err := atomicfile.Write(filepath.Join(bdir, l.Card+".md"), card.Bytes()); err != nil {
				return nil, err
			}
			fmt.Fprintf(&manifest, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", l.Card, l.Split, l.Domain, l.Difficulty, l.ID, l.Model, l.Tree, l.Leaf)
			template = append(template, labelset.Label{Key: l.Key, Model: l.Model, Tree: l.Tree, Leaf: l.Leaf, Card: l.Card})
		}
		var tmpl bytes.Buffer
		if err := labelset.Write(&tmpl, template, true); err != nil {
			return nil, err
		}
		for name, data := range map[string][]byte{"manifest.tsv": manifest.Bytes(), "template.jsonl": tmpl.Bytes()} {
			if err := atomicfile.Write(filepath.Join(bdir, name), data); err != nil {
				return nil, err
			}
		}
		counts = append(counts, len(batch))
	}
	return counts, nil
}

// Instructions is the README written beside the batches: how to label.
func Instructions(batches []int) string {
	var b strings.Builder
	total := 0
	for _, n := range batches {
		total += n
	}
	fmt.Fprintf(&b, `# Label cards: ClinSQL validation, %d cards in %d batches

Each card is one rubric leaf of one model's answer to a ClinSQL task. Decide
whether the answer meets that leaf's requirement, reading the leaf, its
parents, the question, the model's SQL and its result (the gold result is
there to compare with). Do not run any judge or check: decide as a careful
reader would.

For each batch folder:

1. Copy template.jsonl to labels.jsonl in the same folder (the tool that
   renders cards never writes labels.jsonl).
2. For each card, fill its line:
   - "label": "pass", "fail" or "arguable". Use arguable only where a
     careful reader could go either way, and say why in the rationale.
   - "rationale": one line, in your own words, naming what decided it:
     the column, the value, the band, the SQL clause. Do not paste the
     rubric's or the question's text (runs of %d words or more are
     refused), and cite only the few values that decided it.
3. Leave a line blank if you cannot decide yet; blank lines are reported
   as not yet labelled.

A value leaf ("Clinically Plausible (a-b)") often names neither its
column nor its group: the card shows its parents, which do. Decide by the
rubric's wording, not by what you think the question should have asked.

manifest.tsv lists each batch's cards and the leaves they are about.
Cards hold licensed data: keep them where they are, never commit them.
`, total, len(batches), labelset.CopyRun)
	return b.String()
}
