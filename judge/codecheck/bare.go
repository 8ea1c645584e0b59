package codecheck

// Matches beyond names: a column named by its statistic alone, and the
// grouping column a requirement describes.

// bareStatistic reports whether a column name is a statistic alone
// ("p75", "iqr", "min", "percentile_25", "n"), returning the statistics
// it names.
func bareStatistic(name string) (map[string]bool, bool) {
	ts := newTokenSet(name)
	for _, w := range ts.core() {
		if !statistics[w] {
			return nil, false
		}
	}
	cs := statsOf(ts)
	return cs, len(cs) > 0
}

// onlyStatisticColumn returns the column named by the statistic lead
// alone ("p75" for "the 75th percentile of Troponin-T") when it is the
// only column of the result computing lead, else -1. A result whose
// columns are bare statistics computes them for the quantity the question
// is about, so the subject goes without saying; a second column computing
// the same statistic ("p75_los" beside "p75") would make it ambiguous.
func onlyStatisticColumn(t *Table, cands []int, lead string) int {
	if lead == "" {
		return -1
	}
	found := -1
	for _, i := range cands {
		cs, bare := bareStatistic(t.Columns[i])
		if bare && len(cs) == 1 && cs[lead] {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	if found < 0 {
		return -1
	}
	for i, c := range t.Columns {
		if i != found && statsOf(newTokenSet(c))[lead] {
			return -1
		}
	}
	return found
}

// statisticMatch returns the column named by the statistic alone that a
// column requirement asks for ("p75" for "Column for the 75th percentile
// of Troponin-T (e.g., 'p75_troponin_t')"), and the text asking, or -1.
// The requirement must name a quantity besides the statistic (else the
// statistic alone is all it names, and names match as names).
func statisticMatch(t *Table, examples []string, desc string) (int, string) {
	texts := append([]string{desc}, examples...)
	for i, text := range texts {
		lead := leadingStatistic(text)
		if lead == "" {
			continue
		}
		var words []string
		for _, w := range newTokenSet(text).core() {
			if !statistics[w] && !grouping[w] {
				words = append(words, w)
			}
		}
		if len(words) == 0 {
			continue
		}
		if lead == "count" && !cohortCount(words) {
			// A bare "n" counts the cohort's patients or admissions,
			// not the deaths or procedures a requirement may count.
			continue
		}
		if hasLabels(t) {
			// A long-format or grouped result: the statistic column may
			// hold several quantities, told apart by the labels.
			return -1, ""
		}
		if c := onlyStatisticColumn(t, allColumns(t), lead); c >= 0 {
			if i == 0 {
				return c, "the description"
			}
			return c, text
		}
	}
	return -1, ""
}

// groupingMatch returns a column holding group labels whose name states
// the grouping a requirement asks for ("los_category" or "LOS_Bin" for
// "los_group", "tertile" for "tertile stratification"), and the text
// asking, or -1. Apart from the grouping words (group, category, bin,
// tertile, ...), the words on either side must be related both ways; a
// requirement naming a statistic asks for a value per group, not the
// grouping, and is left alone. Grouping words alone match only the same
// grouping word ("tertile" for a tertile stratification).
func groupingMatch(t *Table, examples []string, desc tokenSet) (int, string) {
	type want struct {
		text   string
		words  []string
		groups map[string]bool
	}
	split := func(ts tokenSet) (words []string, groups map[string]bool, stat bool) {
		groups = map[string]bool{}
		for _, w := range ts.core() {
			switch {
			case statistics[w]:
				stat = true
			case grouping[w]:
				groups[w] = true
			default:
				words = append(words, w)
			}
		}
		return words, groups, stat
	}
	var wants []want
	for _, e := range examples {
		if w, g, stat := split(newTokenSet(e)); !stat {
			wants = append(wants, want{e, w, g})
		}
	}
	if w, g, stat := split(desc); !stat && len(desc) > 0 {
		wants = append(wants, want{"the description", w, g})
	}
	for i, c := range t.Columns {
		cw, cg, stat := split(newTokenSet(c))
		if stat || !labelColumn(t, i, len(cg) > 0) {
			continue
		}
		for _, w := range wants {
			switch {
			case len(w.words) > 0 && len(cw) > 0:
				if coveredBy(w.words, cw) && coveredBy(cw, w.words) {
					return i, w.text
				}
			case len(w.words) == 0 && len(cw) == 0:
				// Every grouping word of the column is one the text
				// names: "tertile" for a tertile stratification, not
				// "cohort_type" for "metric_type".
				if len(cg) > 0 && subset(cg, w.groups) {
					return i, w.text
				}
			}
		}
	}
	return -1, ""
}

// subset reports whether every key of a is in b.
func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// coveredBy reports whether every word of a has a related word in b.
func coveredBy(a, b []string) bool {
	for _, x := range a {
		ok := false
		for _, y := range b {
			if related(x, y) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// labelColumn reports a column holding group labels: text values, or, in
// a column whose name states a grouping (named), a few whole numbers
// (quartile 1 to 4).
func labelColumn(t *Table, col int, named bool) bool {
	distinct := map[float64]bool{}
	values := 0
	for _, c := range t.Values(col) {
		switch {
		case c.Null:
			continue
		case !c.IsNum:
			return true
		case c.Num != float64(int64(c.Num)):
			return false
		}
		values++
		distinct[c.Num] = true
	}
	return named && values > 0 && len(distinct) <= 10
}

// cohortUnits are what a bare count ("n", "count") counts; counted
// events are what it does not (a count of deaths or procedures is named).
var (
	cohortUnits   = setOf("patient admission stay icustay cohort case")
	countedEvents = setOf("mortality procedure procedures lab labs test tests event events episode episodes " +
		"readmission diagnosis diagnoses prescription prescriptions medication medications drug drugs transfer transfers")
)

// cohortCount reports a count of the cohort: the words name its unit
// (patients, admissions, stays) and no event counted instead.
func cohortCount(words []string) bool {
	unit := false
	for _, w := range words {
		if countedEvents[w] {
			return false
		}
		unit = unit || cohortUnits[w]
	}
	return unit
}

// cohortCounts drops the bare count columns ("n", "count") from cands
// when the texts count something other than the cohort ("number of
// deaths"): a bare count counts the cohort's patients or admissions.
func cohortCounts(t *Table, cands []int, texts []string) []int {
	var words []string
	for _, text := range texts {
		text = bandBoilerplate.ReplaceAllString(stripBands(stripIdentifiers(text)), " ")
		for _, w := range newTokenSet(text).core() {
			if !statistics[w] && !grouping[w] {
				words = append(words, w)
			}
		}
	}
	if cohortCount(words) {
		return cands
	}
	var out []int
	for _, i := range cands {
		if cs, bare := bareStatistic(t.Columns[i]); !bare || !cs["count"] {
			out = append(out, i)
		}
	}
	return out
}

// hasLabels reports a result with a text value in some column.
func hasLabels(t *Table) bool {
	for _, r := range t.Rows {
		for _, c := range r {
			if !c.Null && !c.IsNum {
				return true
			}
		}
	}
	return false
}
