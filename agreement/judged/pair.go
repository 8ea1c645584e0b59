package judged

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clinsql/clinsql/agreement"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
)

// Pair pairs the two sides' decisions of the models both judged, on the
// tasks both judged, and labels each pair of models. kinds (task -> leaf
// -> kind, from [Kinds]) and results (model -> task -> has a result, from
// [Results]) may be nil.
func Pair(a, b Decisions, kinds map[string]map[string]string, results map[string]map[string]bool) ([]agreement.Item, []string, error) {
	pairs := pairModels(a, b)
	if len(pairs) == 0 {
		return nil, nil, fmt.Errorf("no model judged by both (A: %s; B: %s)", strings.Join(a.Models(), ", "), strings.Join(b.Models(), ", "))
	}
	var items []agreement.Item
	var labels []string
	for _, p := range pairs {
		label := p.name
		if p.a != p.b {
			label = p.a + " (A) with " + p.b + " (B)"
		}
		labels = append(labels, label)
		items = append(items, pairLeaves(p.name, a[p.a], b[p.b], kinds, results[p.name])...)
	}
	return items, labels, nil
}

type modelPair struct{ name, a, b string }

// pairModels pairs the models by name, or the single model of each side.
func pairModels(a, b Decisions) []modelPair {
	var pairs []modelPair
	for m := range a {
		if b[m] != nil {
			pairs = append(pairs, modelPair{m, m, m})
		}
	}
	if len(pairs) == 0 && len(a) == 1 && len(b) == 1 {
		for ma := range a {
			for mb := range b {
				pairs = append(pairs, modelPair{ma, ma, mb})
			}
		}
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i].name < pairs[j].name })
	return pairs
}

// pairLeaves pairs one model's leaves on the tasks both sides judged.
func pairLeaves(model string, da, db map[Ref]Decision, kinds map[string]map[string]string, results map[string]bool) []agreement.Item {
	tasksA, tasksB := tasksOf(da), tasksOf(db)
	res := hasResult(results, da, db)
	refs := map[Ref]bool{}
	for r := range da {
		refs[r] = true
	}
	for r := range db {
		refs[r] = true
	}
	var items []agreement.Item
	for r := range refs {
		if !tasksA[r.Task] || !tasksB[r.Task] {
			continue
		}
		x, okA := da[r]
		y, okB := db[r]
		it := agreement.Item{Model: model, Task: r.Task, Tree: r.Tree, Leaf: r.Leaf, Kind: kindOf(r, x, y, kinds),
			A: verdictOf(x, okA), B: verdictOf(y, okB)}
		it.Result, it.ResultKnown = res[r.Task]
		items = append(items, it)
	}
	return items
}

func tasksOf(d map[Ref]Decision) map[string]bool {
	tasks := map[string]bool{}
	for r := range d {
		tasks[r.Task] = true
	}
	return tasks
}

// hasResult says whether each answer has a result: the run, else a code
// check of "CSV File Exists" on either side.
func hasResult(results map[string]bool, sides ...map[Ref]Decision) map[string]bool {
	res := map[string]bool{}
	for t, v := range results {
		res[t] = v
	}
	for _, d := range sides {
		for r, x := range d {
			if _, ok := res[r.Task]; !ok && x.Kind == string(codecheck.KindCSV) && x.Source == string(judgefmt.SourceCode) {
				res[r.Task] = x.Status == agreement.Pass
			}
		}
	}
	return res
}

// kindOf is a leaf's kind: either side's, the SQL tree's, or the rubric's.
func kindOf(r Ref, x, y Decision, kinds map[string]map[string]string) string {
	switch {
	case x.Kind != "":
		return x.Kind
	case y.Kind != "":
		return y.Kind
	case r.Tree == string(judgefmt.TreeSQL):
		return string(codecheck.KindSQL)
	case kinds != nil:
		return kinds[r.Task][r.Leaf]
	}
	return ""
}

func verdictOf(d Decision, ok bool) agreement.Verdict {
	if !ok {
		return agreement.Verdict{Status: agreement.Missing}
	}
	return agreement.Verdict{Status: d.Status, Source: d.Source, Explanation: d.Explanation}
}
