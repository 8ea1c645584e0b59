package codecheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clinsql/clinsql/rubric"
)

// Values the result does not tell apart (band leaves; column leaves
// below). A results rubric gives each
// value it checks its own subtree ("Validate Value for DKA AKI Rate",
// "Validate Value for General Cohort AKI Rate"); leaves under different
// value subtrees whose texts name different things are about different
// values. When two of them bind to the same cells of the result (the
// same column and rows: "aki_rate" of a one-row result answers both),
// the names did not find what tells them apart (the group, the
// statistic, the unit), so at most one of them reads its own value:
// neither is decided in code.

// cells is where a band leaf reads its value, "" when it reads none (no
// single column or row set, an aggregate, several bands).
type cells string

// binding is a band leaf's columns as bindColumns found them.
type binding struct {
	cols     []int
	how, why string
}

// cellsOf returns the cells of a band leaf bound to b.
func cellsOf(leaf *rubric.Node, t *Table, b binding) cells {
	bands := valueBands(leaf.Requirements)
	if len(bands) != 1 || aggregate(leaf, t, bands) {
		return ""
	}
	texts := bindingTexts(leaf)
	cols := b.cols
	if len(cols) != 1 {
		return ""
	}
	rows, _ := selectRows(t, texts, cols[0], treeText(leaf))
	if rows == nil {
		return ""
	}
	return cells(fmt.Sprint(cols[0], rows))
}

// treeCells are the cells of every band leaf of one rubric tree, in
// file order, on one table, and the column each column leaf passes on
// ("" when it does not pass).
type treeCells struct {
	leaves []*rubric.Node
	cells  []cells
	binds  []binding

	columnLeaves []*rubric.Node
	columnChecks []CodeDecision
}

// cellsByLeaf returns (and caches on the table) the cells of the band
// leaves of leaf's tree.
func (t *Table) cellsByLeaf(leaf *rubric.Node) *treeCells {
	root := leaf
	for root.Parent != nil {
		root = root.Parent
	}
	if v, ok := t.bound.Load(root); ok {
		return v.(*treeCells)
	}
	tc := &treeCells{}
	for _, l := range root.Leaves() {
		switch KindOf(l) {
		case KindBand:
			var b binding
			b.cols, b.how, b.why = bindColumns(t, bindingTexts(l))
			tc.leaves = append(tc.leaves, l)
			tc.binds = append(tc.binds, b)
			tc.cells = append(tc.cells, cellsOf(l, t, b))
		case KindColumn:
			tc.columnLeaves = append(tc.columnLeaves, l)
			tc.columnChecks = append(tc.columnChecks, checkColumn(l, t))
		}
	}
	v, _ := t.bound.LoadOrStore(root, tc)
	return v.(*treeCells)
}

// bindingOf returns the columns a band leaf binds to, from the table's
// cache (texts are the leaf's bindingTexts).
func (t *Table) bindingOf(leaf *rubric.Node, texts []string) ([]int, string, string) {
	tc := t.cellsByLeaf(leaf)
	if i := slices.Index(tc.leaves, leaf); i >= 0 {
		b := tc.binds[i]
		return b.cols, b.how, b.why
	}
	return bindColumns(t, texts)
}

// sameCells returns a band leaf about another value that binds to the
// cells leaf binds to, nil when none does.
func sameCells(leaf *rubric.Node, t *Table) *rubric.Node {
	tc := t.cellsByLeaf(leaf)
	i := slices.Index(tc.leaves, leaf)
	if i < 0 || tc.cells[i] == "" {
		return nil
	}
	for j, other := range tc.leaves {
		if j != i && tc.cells[j] == tc.cells[i] && otherValue(leaf, other) {
			return other
		}
	}
	return nil
}

// valueNode is the node naming the value a band leaf checks: its parent
// when that is a value subtree (below the category), else the leaf itself
// (a band written directly under the category names its value).
func valueNode(leaf *rubric.Node) *rubric.Node {
	if leaf.Parent != nil && leaf.Depth() >= 3 {
		return leaf.Parent
	}
	return leaf
}

// otherValue reports two band leaves about different values: their value
// nodes differ and name different words once the bands and the
// boilerplate of a band ("Clinically Plausible", "Acceptable Range") are
// set aside. Two subtrees with the same words are one value checked
// twice.
func otherValue(a, b *rubric.Node) bool {
	va, vb := valueNode(a), valueNode(b)
	if va == vb {
		return false
	}
	return valueWords(va) != valueWords(vb)
}

func valueWords(n *rubric.Node) string {
	text := bandBoilerplate.ReplaceAllString(stripBands(n.Requirements), " ")
	return strings.Join(newTokenSet(text).core(), " ")
}

// claimedByOther returns a column leaf about another quantity that
// passes on the column d passed leaf on, nil when none does. Only a
// match by the quantity (not by a name the rubric gives) is questioned:
// "median_risk_score" is the example of "median risk score", and no match
// of "risk percentile" to it can stand beside that.
func claimedByOther(leaf *rubric.Node, t *Table, d CodeDecision) *rubric.Node {
	if !d.Decided || !d.Pass || d.Evidence == nil || d.Evidence.Match == "exact" || d.Evidence.Match == "canonical" {
		return nil
	}
	tc := t.cellsByLeaf(leaf)
	for j, other := range tc.columnLeaves {
		o := tc.columnChecks[j]
		if other != leaf && o.Decided && o.Pass && o.Evidence.Column == d.Evidence.Column && valueWords(other) != valueWords(leaf) {
			return other
		}
	}
	return nil
}

// columnCheck returns checkColumn's decision of a column leaf, from the
// table's cache.
func (t *Table) columnCheck(leaf *rubric.Node) CodeDecision {
	tc := t.cellsByLeaf(leaf)
	if i := slices.Index(tc.columnLeaves, leaf); i >= 0 {
		return tc.columnChecks[i]
	}
	return checkColumn(leaf, t)
}
