package codecheck

import (
	"regexp"
	"strings"

	"github.com/clinsql/clinsql/rubric"
)

// A band may be meant for the total of a column over the result's rows
// ("the sum of percentages is close to 100 (98-102)", "total number of
// stays across all categories between 2000 and 5000") or for the number
// of categories the result reports ("number of age groups 3-6"): checked
// value by value, a right answer fails.
var (
	totalText    = regexp.MustCompile(`(?i)\bsum of\b|\badds? up to\b|\bsums? to\b|\btotal\b[^.;]{0,60}\b(?:across|over) (?:all|the|every|each)\b`)
	totalWords   = regexp.MustCompile(`(?i)\b(?:sum|sums|total|add up|adds up)\b`)
	categoryText = regexp.MustCompile(`(?i)\bnumber of (?:distinct |unique |reported )?(?:[a-z-]+ )?(?:categories|groups|strata|bins|buckets|tiers|levels)\b`)
	totalRow     = regexp.MustCompile(`(?i)^\s*(?:total|overall|all|sum|grand total)\s*$`)
)

// checkAggregate decides a band leaf meant for a total or a count of
// categories; ok is false for any other leaf, which bandOnColumn decides
// value by value.
func checkAggregate(leaf *rubric.Node, t *Table, texts []string, bands []Band) (CodeDecision, bool) {
	if !aggregate(leaf, t, bands) {
		return CodeDecision{}, false
	}
	if categoryText.MatchString(leaf.Requirements) {
		return checkCategoryCount(t, bands[0]), true
	}
	return checkTotal(t, texts, bands[0]), true
}

// aggregate reports a band leaf meant for a total or a count of
// categories.
func aggregate(leaf *rubric.Node, t *Table, bands []Band) bool {
	text := leaf.Requirements
	return len(bands) == 1 && (categoryText.MatchString(text) || totalText.MatchString(text) && len(t.Rows) > 1)
}

// checkCategoryCount compares the number of categories, the distinct
// values of the first column, with the band when each row is one
// category.
func checkCategoryCount(t *Table, b Band) CodeDecision {
	seen := map[string]bool{}
	for _, r := range t.Rows {
		seen[strings.TrimSpace(r[0].Raw)] = true
	}
	ev := &Evidence{Rows: t.TotalRows, Column: t.Columns[0], Band: b.String(), Match: "categories"}
	if len(seen) != t.TotalRows || t.Truncated {
		return undecided(KindBand, "the requirement counts categories, and the rows of the result are not one category each")
	}
	n := len(seen)
	in := b.Contains(float64(n))
	return decided(KindBand, in, ev, "the result reports %d categories (%s), %s %s", n, t.Columns[0], map[bool]string{true: "within", false: "outside"}[in], b)
}

// checkTotal sums the bound column over every row and compares the total
// with the band. A row of totals already in the result, a NULL, or a
// total that fits only read as a percentage of fractions leave it to the
// judge.
func checkTotal(t *Table, texts []string, b Band) CodeDecision {
	stripped := make([]string, len(texts))
	for i, s := range texts {
		stripped[i] = totalWords.ReplaceAllString(s, " ")
	}
	cols, how, why := bindColumns(t, stripped)
	if len(cols) != 1 {
		if why == "" {
			why = "several columns fit"
		}
		return undecided(KindBand, "the requirement bounds a total: %s", why)
	}
	col := cols[0]
	for _, r := range t.Rows {
		for i, c := range r {
			if i != col && !c.IsNum && totalRow.MatchString(c.Raw) {
				return undecided(KindBand, "the result has a row of totals (%q): summing the column would count it twice", c.Raw)
			}
		}
	}
	sum, fractions := 0.0, true
	ev := &Evidence{Rows: t.TotalRows, Column: t.Columns[col], Band: b.String(), Match: how}
	if nullColumn(t, col) {
		return decided(KindBand, false, ev, "the requirement bounds the total of %q, which is NULL in every row", t.Columns[col])
	}
	for _, r := range t.Rows {
		c := r[col]
		if !c.IsNum {
			return undecided(KindBand, "the requirement bounds the total of %q, which holds a non-numeric or NULL value", t.Columns[col])
		}
		sum += c.Num
		fractions = fractions && c.Num >= 0 && c.Num <= 1
		if len(ev.Values) < maxEvidenceValues {
			ev.Values = append(ev.Values, c.Raw)
		}
	}
	in := b.Contains(sum)
	if !in && fractions && b.Contains(sum*100) {
		return undecided(KindBand, "the total of %q is %s: within %s only read as a percentage", t.Columns[col], fmtNum(sum), b)
	}
	return decided(KindBand, in, ev, "the total of %s over %d rows is %s, %s %s", t.Columns[col], len(t.Rows), fmtNum(sum),
		map[bool]string{true: "within", false: "outside"}[in], b)
}

func nullColumn(t *Table, col int) bool {
	for _, r := range t.Rows {
		if !r[col].Null {
			return false
		}
	}
	return true
}
