package audit

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
)

// Finding is a rubric-lint finding: a leaf the gold answer cannot satisfy
// as written, whoever judges it. Rubric authors fix these; a judge that
// fails such a leaf on the gold answer is not wrong.
type Finding struct {
	Task        string `json:"task"`
	Leaf        string `json:"leaf"`
	Kind        string `json:"kind"`
	Requirement string `json:"requirement"`
	Problem     string `json:"problem"`
}

func (f *Finding) key() judgefmt.LeafKey {
	return judgefmt.LeafKey{Task: f.Task, Tree: judgefmt.TreeResults, Leaf: f.Leaf}
}

// Lint checks a task's results rubric against its own gold result:
//
//   - an empty gold result, which fails every results leaf;
//   - a band leaf the gold result does not satisfy: no value of the gold
//     column the leaf (else its nearest ancestor) names, nor that column's
//     total, lies in the stated range (a rate read as a fraction or a
//     percentage either way), the value a reader checks; where no gold
//     column is named, no value, column total, row or column count of
//     the whole result does;
//   - a column leaf whose examples are specific names while every gold
//     column has a generic one (col_1, f0_);
//   - a no-NULL leaf that allows no NULL in a column it names while that
//     gold column has one.
func Lint(t *datasets.Task, gold *codecheck.Table) []*Finding {
	if gold == nil {
		return nil
	}
	var out []*Finding
	add := func(leafID, kind, req, format string, a ...any) {
		out = append(out, &Finding{Task: t.Key.String(), Leaf: leafID, Kind: kind, Requirement: req, Problem: fmt.Sprintf(format, a...)})
	}
	for _, l := range t.ResultsRubric.Root.Leaves() {
		kind := codecheck.KindOf(l)
		if gold.TotalRows == 0 {
			add(l.ID, string(kind), l.Requirements, "the gold result has no rows")
			continue
		}
		switch kind {
		case codecheck.KindBand:
			bands := readBands(l.Requirements)
			if len(bands) == 0 {
				break
			}
			// A reader checks the value the leaf is about: the gold column
			// the leaf, else its nearest ancestor, names. Only where no
			// gold column is named does any value of the result count.
			if cols := namedColumns(gold, l); cols != nil {
				if _, ok := inBand(gold, cols, bands, rateLeaf(l)); !ok {
					add(l.ID, string(kind), l.Requirements, "no value of the gold column %s lies in %s (its values: %s)",
						columnNames(gold, cols), bandList(bands), sampleValues(gold, cols))
				}
			} else if _, ok := anyInBand(gold, bands, rateLeaf(l)); !ok {
				add(l.ID, string(kind), l.Requirements, "no gold value lies in %s (gold values: %s)", bandList(bands), sampleValues(gold, nil))
			}
		case codecheck.KindColumn:
			if p := genericGoldNames(gold, l.Requirements); p != "" {
				add(l.ID, string(kind), l.Requirements, "%s", p)
			}
		case codecheck.KindNoNull:
			if nullExcuse.MatchString(l.Requirements) {
				continue
			}
			// Only a column the leaf names: a leaf naming none may be
			// about some rows or columns ("in the target row", "key
			// columns"), which a NULL elsewhere does not break.
			for _, id := range codecheck.Identifiers(l.Requirements) {
				if i := gold.Column(id); i >= 0 && hasNull(gold, i) {
					add(l.ID, string(kind), l.Requirements, "the gold column %s has a NULL value", gold.Columns[i])
					break
				}
			}
		}
	}
	return out
}

func hasNull(t *codecheck.Table, i int) bool {
	for _, r := range t.Rows {
		if i < len(r) && r[i].Null {
			return true
		}
	}
	return false
}

// namedColumns returns the gold columns the leaf names (quoted, snake_case
// or "e.g." names that are exactly a gold column), else those its nearest
// ancestor naming one names; nil when none does or none of them holds a
// number.
func namedColumns(gold *codecheck.Table, l *rubric.Node) []int {
	nodes := []*rubric.Node{l}
	anc := l.Ancestors()
	for i := len(anc) - 1; i >= 0; i-- {
		nodes = append(nodes, anc[i])
	}
	for _, n := range nodes {
		var cols []int
		for _, id := range codecheck.Identifiers(n.Requirements) {
			if i := gold.Column(id); i >= 0 && !slices.Contains(cols, i) {
				cols = append(cols, i)
			}
		}
		if len(cols) > 0 {
			// A named column without a number (values packed in text, an
			// array) is not read here: the whole result is.
			for _, i := range cols {
				for _, r := range gold.Rows {
					if i < len(r) && r[i].IsNum {
						return cols
					}
				}
			}
			return nil
		}
	}
	return nil
}

func columnNames(t *codecheck.Table, cols []int) string {
	var names []string
	for _, i := range cols {
		names = append(names, t.Columns[i])
	}
	return strings.Join(names, ", ")
}

// sampleValues lists the first numbers of a table's columns (every
// column for nil), for a finding.
func sampleValues(t *codecheck.Table, cols []int) string {
	var vals []string
	for _, r := range t.Rows {
		for i, c := range r {
			if cols != nil && !slices.Contains(cols, i) {
				continue
			}
			if c.IsNum && len(vals) < 8 {
				vals = append(vals, t.Columns[i]+"="+c.Raw)
			}
		}
	}
	if len(vals) == 0 {
		return "none"
	}
	return strings.Join(vals, ", ")
}

// genericGoldNames finds a column leaf the gold can only meet with a
// generic column name: the leaf asks for a named quantity (by example or
// description), no gold column name shares a word with it, and some gold
// columns have generic names. "" when there is no such problem.
func genericGoldNames(gold *codecheck.Table, req string) string {
	var generic []string
	named := map[string]bool{}
	for _, c := range gold.Columns {
		if codecheck.GenericName(c) {
			generic = append(generic, c)
			continue
		}
		for w := range contentWords(c) {
			named[w] = true
		}
	}
	want := contentWords(req)
	if len(generic) == 0 || len(want) == 0 || overlaps(want, named) {
		return ""
	}
	var specific []string
	for _, id := range codecheck.Identifiers(req) {
		if !codecheck.GenericName(id) {
			specific = append(specific, id)
		}
	}
	what := "a named quantity"
	if len(specific) > 0 {
		what = "the example names " + strings.Join(specific, ", ")
	}
	return fmt.Sprintf("the gold result names its columns generically (%s) where the leaf asks for %s", strings.Join(generic, ", "), what)
}

// cohortBefore is text just before a range that makes it the cohort's
// ages ("(female, 63-73, transfer)", "aged 40-50", "patients 65-75"), not
// a value's band.
var cohortBefore = regexp.MustCompile(`(?i)(?:\bage[ds]?|\bfemales?|\bmales?|\bwomen|\bmen|\bpatients|\bbetween the ages of|\bcohort)\W{0,3}$`)

// readBands reads the ranges a value leaf states, leaving out cohort age
// ranges.
func readBands(text string) []codecheck.Band {
	var out []codecheck.Band
	for _, b := range codecheck.ParseBands(text) {
		if i := strings.Index(text, b.Text); i > 0 && cohortBefore.MatchString(text[:i]) {
			continue
		}
		out = append(out, b)
	}
	return out
}
