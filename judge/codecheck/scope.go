package codecheck

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/clinsql/clinsql/rubric"
)

// cohortAfter is text just after a range that makes it the cohort's ages
// ("70-80 year olds", "65-75-year-old women"), not the value's band.
const maxAge = 120

var cohortAfter = regexp.MustCompile(`(?i)^[\s-]*(?:(?:years?|yrs?)[\s-]*)?olds?\b|^[\s-]*(?:years?|yrs?)[\s-]+of[\s-]+age\b`)

// cohortRange reports a band of text written as the cohort's ages. No
// age passes 120: a wider range after "women" is the value's.
func cohortRange(text string, b Band) bool {
	i := strings.Index(text, b.Text)
	if i < 0 || b.Lo < 0 || b.Hi > maxAge || b.Percent {
		return false
	}
	return i > 0 && cohortContext.MatchString(text[:i]) || cohortAfter.MatchString(text[i+len(b.Text):])
}

// conditional marks a requirement that applies only in some cases ("if
// applicable", "where available"): an absent column or an unmet band may
// be a case it does not apply to, which is the judge's call.
var conditional = regexp.MustCompile(`(?i)\b(?:if|where|when) (?:applicable|available|present|relevant|any)\b|\boptional(?:ly)?\b`)

// unlessConditional turns a failure of a conditional requirement into an
// undecided leaf; a pass stands.
func unlessConditional(leaf *rubric.Node, d CodeDecision) CodeDecision {
	if !d.Decided || d.Pass || !conditional.MatchString(leaf.Requirements) {
		return d
	}
	return undecided(d.Kind, "the requirement applies only in some cases (%q), and code cannot tell whether this is one: %s",
		conditional.FindString(leaf.Requirements), d.Explanation)
}

// rowScope finds a NULL requirement scoped to some rows ("for the female
// cohort", "among patients with sepsis", "where the count is positive");
// "for each group" or "for all rows" scopes nothing.
var (
	rowScope     = regexp.MustCompile(`(?i)\b(?:for|among|within)\s+(?:the\s+)?(?:[\w'-]+\s+){0,4}?(?:cohorts?|groups?|rows?|strat(?:um|a)|subgroups?|categor(?:y|ies)|patients|admissions|stays)\b|\bwhere\b|\bwhen\b`)
	universalRow = regexp.MustCompile(`(?i)\b(?:each|all|every|any)\b`)
)

// scopedRows returns the rows a NULL requirement is scoped to: scoped is
// false for an unscoped requirement; rows is nil when it is scoped but
// the rows cannot be told from the result's labels.
func scopedRows(text string, t *Table) (rows []int, scoped bool) {
	m := rowScope.FindString(text)
	if m == "" || universalRow.MatchString(m) {
		return nil, false
	}
	for _, l := range labelRe.FindAllStringSubmatch(text, -1) {
		if findColumn(t, l[1]) >= 0 {
			continue
		}
		if rs := rowsLabelled(t, l[1], -1); len(rs) > 0 {
			return rs, true
		}
	}
	named, _ := rowsNamed(t, []string{text}, -1, nil)
	return named, true
}

// nullsInRows counts the NULLs of the columns in the rows.
func nullsInRows(t *Table, cols, rows []int) (bad []string) {
	for _, c := range cols {
		n := 0
		for _, r := range rows {
			if t.Rows[r][c].Null {
				n++
			}
		}
		if n > 0 {
			bad = append(bad, fmt.Sprintf("%s (%d)", t.Columns[c], n))
		}
	}
	return bad
}

// checkScopedNulls decides a NULL requirement scoped to some rows, on
// those rows only; ok is false for an unscoped one.
func checkScopedNulls(text string, t *Table, named []int, ev *Evidence) (CodeDecision, bool) {
	rows, scoped := scopedRows(text, t)
	if !scoped {
		return CodeDecision{}, false
	}
	if rows == nil {
		return undecided(KindNoNull, "the requirement covers only some rows (%q), which the result's labels do not show", rowScope.FindString(text)), true
	}
	if bad := nullsInRows(t, named, rows); len(bad) > 0 {
		ev.Columns = bad
		return decided(KindNoNull, false, ev, "NULL or empty values in the named column(s) %s, in the %d row(s) the requirement is about", strings.Join(bad, ", "), len(rows)), true
	}
	return decided(KindNoNull, true, ev, "no NULL in the named column(s) in the %d row(s) the requirement is about; NULLs only in other rows", len(rows)), true
}

// negationFilter keeps, of columns that differ by a negated word
// ("median_los_survivors", "median_los_nonsurvivors"), those that agree
// with the nearest text naming that word: the leaf first, then its
// parents. Without the filter the column holding more of the leaf's other
// words wins, the wrong one.
func negationFilter(t *Table, cands []int, texts []string) []int {
	bases := map[string]bool{}
	for _, c := range cands {
		ts := Tokens(t.Columns[c])
		for i := 0; i+1 < len(ts); i++ {
			if negations[ts[i]] {
				bases[ts[i+1]] = true
			}
		}
	}
	if len(bases) == 0 {
		return cands
	}
	// Nearest first: the leaf is the last text, its parent the first.
	order := append([]string{texts[len(texts)-1]}, texts[:len(texts)-1]...)
	out := cands
	for base := range bases {
		for _, text := range order {
			ts := Tokens(text)
			i := findSeq(ts, []string{base})
			if i < 0 {
				continue
			}
			negated := containsNegated(ts, []string{base}) && !containsSeq(ts, []string{base})
			var keep []int
			for _, c := range out {
				cs := Tokens(t.Columns[c])
				j := findSeq(cs, []string{base})
				if j < 0 || (j > 0 && negations[cs[j-1]]) == negated {
					keep = append(keep, c)
				}
			}
			if len(keep) > 0 {
				out = keep
			}
			break
		}
	}
	return out
}

// nonPrefix splits a "non" prefix written as one word ("nonsurvivors",
// "nondiabetic") so it negates the word as "non-survivors" does.
var nonPrefix = regexp.MustCompile(`\bnon([a-z]{4,})`)

// onlyNumbers reports tokens that are numbers only: a generic column name
// ("col_1", "value_2") or example ("metric_1_name") once its generic words
// are gone. Two such names share nothing but a position.
func onlyNumbers(ts []string) bool {
	for _, t := range ts {
		for _, r := range t {
			if r < '0' || r > '9' {
				return false
			}
		}
	}
	return true
}
