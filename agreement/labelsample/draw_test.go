package labelsample

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clinsql/clinsql/agreement/labelset"
	"github.com/clinsql/clinsql/datasets/released"
	"github.com/clinsql/clinsql/internal/shared"
	"github.com/clinsql/clinsql/internal/testrace"
)

// The committed draw (cmd/labelcards draw) and its strata table.
var (
	committedDraw   = filepath.Join("draw", "validation.jsonl")
	committedStrata = filepath.Join("draw", "validation-strata.tsv")
)

func readDraw(t *testing.T) []labelset.Label {
	t.Helper()
	f, err := os.Open(committedDraw)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	labels, err := labelset.Read(f, committedDraw, labelset.ReadOptions{Template: true})
	if err != nil {
		t.Fatal(err)
	}
	return labels
}

// TestCommittedDraw checks the draw the cards are rendered from: blank,
// numbered, at least issue 27's sizes per class with every leaf kind
// among the disagreements, and its strata as the table beside it says.
func TestCommittedDraw(t *testing.T) {
	labels := readDraw(t)
	perClass := map[string]int{}
	kinds := map[string]bool{}
	perStratum := map[string]int{}
	pop := map[string]int{}
	for i, l := range labels {
		if l.Label != "" || l.Rationale != "" || l.Blind() {
			t.Errorf("line %d: a draw holds the draw's fields and no label", i+1)
		}
		if want := fmt.Sprintf("c%04d", i+1); l.Card != want {
			t.Errorf("line %d: card %q, want %q", i+1, l.Card, want)
		}
		if l.Seed != DefaultPlan.Seed {
			t.Errorf("line %d: seed %d", i+1, l.Seed)
		}
		perClass[l.Chosen]++
		if l.Chosen == labelset.Disagreement {
			kinds[strings.Split(l.Stratum, "/")[1]] = true
		}
		perStratum[l.Stratum]++
		pop[l.Stratum] = l.Population
		if l.Drawn != 0 && perStratum[l.Stratum] > l.Drawn {
			t.Errorf("line %d: more than %d labels of %s", i+1, l.Drawn, l.Stratum)
		}
	}
	for class, least := range map[string]int{labelset.Disagreement: 500, labelset.Agreement: 300, labelset.LLMOnly: 200} {
		if perClass[class] < least {
			t.Errorf("%d %s leaves, want at least %d", perClass[class], class, least)
		}
	}
	for _, k := range []string{"band", "column_exists", "csv_exists", "no_null"} {
		if !kinds[k] {
			t.Errorf("no %s leaf among the disagreements", k)
		}
	}
	if len(labels) < 1000 {
		t.Errorf("%d leaves drawn, want at least 1,000", len(labels))
	}

	f, err := os.Open(committedStrata)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	tableDrawn := 0
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 5 {
			t.Fatalf("%s: %q", committedStrata, sc.Text())
		}
		name := p[0] + "/" + p[1] + "/" + p[2]
		n, _ := strconv.Atoi(p[3])
		d, _ := strconv.Atoi(p[4])
		tableDrawn += d
		if perStratum[name] != d || (d > 0 && pop[name] != n) {
			t.Errorf("%s: the table says %d of %d, the draw holds %d of %d", name, d, n, perStratum[name], pop[name])
		}
	}
	if tableDrawn != len(labels) {
		t.Errorf("the strata table sums to %d, the draw holds %d", tableDrawn, len(labels))
	}
}

// TestCommittedDrawLeaves: every drawn leaf is a leaf of its task's
// rubric, answered by its model in the released runs.
func TestCommittedDrawLeaves(t *testing.T) {
	testrace.SecondPassOnly(t)
	labels := readDraw(t)
	tasks, models, err := released.Open(shared.Path(t, "clinsql-data"))
	if err != nil {
		t.Fatal(err)
	}
	answered := map[string]bool{}
	for _, m := range models {
		for _, o := range m.Outputs {
			answered[m.Name+" "+o.Key.String()] = true
		}
	}
	for _, l := range labels {
		task := tasks[l.Key]
		if task == nil || !answered[l.Model+" "+l.Key.String()] {
			t.Errorf("%s: no such answer", l.LeafKey())
			continue
		}
		root := task.ResultsRubric.Root
		if l.Tree == labelset.TreeSQL {
			root = task.SQLRubric.Root
		}
		if n := root.Find(l.Leaf); n == nil || !n.IsLeaf() {
			t.Errorf("%s: no such leaf", l.LeafKey())
		}
	}
}

// TestReadmeDrawTable: the README states the committed draw's strata,
// summed over models, as this test computes them from the strata table.
func TestReadmeDrawTable(t *testing.T) {
	b, err := os.ReadFile(committedStrata)
	if err != nil {
		t.Fatal(err)
	}
	type group struct{ class, group string }
	var order []group
	pop, drawn := map[group]int{}, map[group]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		p := strings.Split(line, "\t")
		g := group{p[0], p[1]}
		if _, ok := pop[g]; !ok {
			order = append(order, g)
		}
		n, _ := strconv.Atoi(p[3])
		d, _ := strconv.Atoi(p[4])
		pop[g] += n
		drawn[g] += d
	}
	var md strings.Builder
	md.WriteString("| chosen | group | leaves | drawn |\n|---|---|---:|---:|\n")
	totalPop, total := 0, 0
	for _, g := range order {
		fmt.Fprintf(&md, "| %s | %s | %s | %d |\n", g.class, g.group, thousands(pop[g]), drawn[g])
		totalPop += pop[g]
		total += drawn[g]
	}
	fmt.Fprintf(&md, "| all | | %s | %s |\n", thousands(totalPop), thousands(total))
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), md.String()) {
		t.Errorf("README.md does not hold the draw's table:\n%s", md.String())
	}
}

func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
