package codecheck

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
)

// LeafKind is a leaf's check kind (judgefmt.LeafKind: the ledger records
// it).
type LeafKind = judgefmt.LeafKind

// The check kinds.
const (
	KindCSV    = judgefmt.KindCSV
	KindColumn = judgefmt.KindColumn
	KindNoNull = judgefmt.KindNoNull
	KindBand   = judgefmt.KindBand
	KindOther  = judgefmt.KindOther
	KindSQL    = judgefmt.KindSQL
)

var (
	csvText    = regexp.MustCompile(`(?i)\bcsv\b|output is a (?:csv|file|table)`)
	nullText   = regexp.MustCompile(`(?i)\bnull\b|\bempty\b|\bmissing values?\b|\bnan\b`)
	columnText = regexp.MustCompile(`(?i)\bcolumns?\b`)
	formatText = regexp.MustCompile(`(?i)format`)
)

// inFormatCategory reports whether the leaf sits under the results rubric's
// output-format category (csv, columns, nulls) rather than the value layer.
func inFormatCategory(leaf *rubric.Node) bool {
	anc := leaf.Ancestors()
	for _, a := range anc[min(1, len(anc)):] {
		if formatText.MatchString(a.ID) || formatText.MatchString(a.Requirements) {
			return true
		}
	}
	return false
}

// kindMemo caches KindOf per node: rubric trees are immutable once parsed.
var kindMemo sync.Map // *rubric.Node -> LeafKind

// KindOf classifies a results-rubric leaf.
func KindOf(leaf *rubric.Node) LeafKind {
	if k, ok := kindMemo.Load(leaf); ok {
		return k.(LeafKind)
	}
	k := kindOf(leaf)
	kindMemo.Store(leaf, k)
	return k
}

func kindOf(leaf *rubric.Node) LeafKind {
	text := leaf.Requirements
	format := inFormatCategory(leaf)
	switch {
	case leaf.ID == "csv-file-exists" || format && csvText.MatchString(text) && !columnText.MatchString(text) && !nullText.MatchString(text):
		return KindCSV
	case strings.Contains(leaf.ID, "null") || format && nullText.MatchString(text):
		return KindNoNull
	case format && (columnText.MatchString(text) || strings.Contains(leaf.ID, "column")):
		return KindColumn
	case !format && len(ParseBands(text)) > 0:
		return KindBand
	}
	return KindOther
}

// Evidence is a code decision's column, values and band
// (judgefmt.Evidence: the ledger records it).
type Evidence = judgefmt.Evidence

const maxEvidenceValues = 10

// CodeDecision is the outcome of a code check.
type CodeDecision struct {
	Kind LeafKind
	// Decided is false when code cannot decide with confidence; the leaf
	// then goes to the judge backend. Why is in Explanation.
	Decided bool
	Pass    bool
	// Explanation states the decision and its evidence in one sentence.
	Explanation string
	Evidence    *Evidence
}

func undecided(k LeafKind, format string, a ...any) CodeDecision {
	return CodeDecision{Kind: k, Explanation: fmt.Sprintf(format, a...)}
}

func decided(k LeafKind, pass bool, ev *Evidence, format string, a ...any) CodeDecision {
	return CodeDecision{Kind: k, Decided: true, Pass: pass, Evidence: ev, Explanation: fmt.Sprintf(format, a...)}
}

// CheckSQL decides an SQL-rubric leaf, when code can: only the absence
// of SQL is decided (every SQL requirement then fails); everything else
// is a judgement.
func CheckSQL(a *Answer) CodeDecision {
	if a.SQLAbsent {
		// Unknown is not empty: a release without SQL text leaves SQL
		// leaves to the backend (recorded decisions, typically).
		return undecided(KindSQL, "the SQL text was not released; SQL requirements are judged by the backend")
	}
	if strings.TrimSpace(a.SQL) == "" {
		return decided(KindSQL, false, &Evidence{}, "no SQL was produced")
	}
	return undecided(KindSQL, "SQL requirements are judged by the backend")
}

// Check decides a results-rubric leaf from the answer, when code can.
//
// Without a result (the query failed, returned no rows, or left no
// readable result file) every results leaf fails: there is nothing to
// validate. "CSV File Exists" means exactly that a result with at least one
// row exists: the reference's placeholder CSV (one column "result", one
// empty row) stands for a failed or an empty run and does not count, and an
// empty result written by another engine is judged the same way.
func Check(leaf *rubric.Node, a *Answer) CodeDecision {
	kind := KindOf(leaf)
	if !a.HasResult() {
		return decided(kind, false, &Evidence{}, "%s", noResultReason(a))
	}
	t := a.Table
	if t == nil {
		if kind == KindCSV {
			return decided(kind, true, &Evidence{Rows: a.RowCount}, "the query ran and returned %d row(s) (the result file is not in the run)", a.RowCount)
		}
		return undecided(kind, "the result file is not in the run (%d rows recorded)", a.RowCount)
	}
	switch kind {
	case KindCSV:
		return decided(kind, true, &Evidence{Rows: t.TotalRows, Columns: t.Columns},
			"the query ran and returned %d row(s) x %d column(s)", t.TotalRows, len(t.Columns))
	case KindNoNull:
		return checkNoNull(leaf, t)
	case KindColumn:
		d := t.columnCheck(leaf)
		if other := claimedByOther(leaf, t, d); other != nil {
			return undecided(KindColumn, "column %q is also what %q asks for (%s): its name does not tell the two apart",
				d.Evidence.Column, other.ID, firstLine(strings.Join(strings.Fields(other.Requirements), " "), 80))
		}
		return unlessConditional(leaf, d)
	case KindBand:
		return unlessConditional(leaf, checkBand(leaf, t))
	}
	return undecided(kind, "no code check reads this requirement")
}

func noResultReason(a *Answer) string {
	switch {
	case !a.Executed && a.Error != "":
		return "no result: the query failed (" + firstLine(a.Error, 160) + ")"
	case !a.Executed && a.SQLAbsent:
		return "no result: only the reference's placeholder CSV was released"
	case !a.Executed && strings.TrimSpace(a.SQL) == "":
		return "no result: no SQL was produced"
	case !a.Executed:
		return "no result: the query did not run successfully"
	case a.ReadErr != nil:
		return "no result: the result file cannot be read: " + firstLine(a.ReadErr.Error(), 160)
	case a.ResultFile == "" && a.Table == nil && !a.Placeholder:
		return "no result: the run has no result file"
	}
	return "no result: the query returned no rows"
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// --- no NULL / empty values ---

var (
	nullExcuse = regexp.MustCompile(`(?i)\bexpected\b|\bacceptable\b|\bmay be\b|\bcan be\b|\bnote\b|\bunexpected\b|\bapplicable\b|\brespective rows\b|\bfor the rows\b`)
	// nullUnscoped: the leaf covers the whole result.
	nullUnscoped = regexp.MustCompile(`(?i)^\s*no null\s*/\s*empty values\.?\s*$|\bin the (?:provided )?csv\b|\bin (?:the )?result(?: row| columns)?\b|\bany of the required\b|\bin (?:all|any) columns\b`)
)

func checkNoNull(leaf *rubric.Node, t *Table) CodeDecision {
	nulls := map[int]int{}
	for _, r := range t.Rows {
		for i, c := range r {
			if c.Null {
				nulls[i]++
			}
		}
	}
	ev := &Evidence{Rows: t.TotalRows}
	if len(nulls) == 0 {
		if t.Truncated {
			return undecided(KindNoNull, "no NULL in the first %d rows, but the result has %d", len(t.Rows), t.TotalRows)
		}
		if col, raw := packedNull(t); col >= 0 {
			return undecided(KindNoNull, "no cell is NULL, but %s holds a packed value with an empty field (%s): whether a NULL inside a value counts is a judgement",
				t.Columns[col], firstLine(raw, 60))
		}
		ev.Columns = t.Columns
		return decided(KindNoNull, true, ev, "no NULL or empty value in any of the %d column(s) and %d row(s)", len(t.Columns), t.TotalRows)
	}
	var withNull []string
	for i, c := range t.Columns {
		if nulls[i] > 0 {
			withNull = append(withNull, fmt.Sprintf("%s (%d)", c, nulls[i]))
		}
	}
	ev.Columns = withNull
	text := leaf.Requirements
	if nullExcuse.MatchString(text) {
		return undecided(KindNoNull, "NULLs in %s, and the requirement allows some", strings.Join(withNull, ", "))
	}
	// Columns the leaf names, where they exist in the result.
	var named []int
	for _, id := range Identifiers(text) {
		if i := findColumn(t, id); i >= 0 {
			named = append(named, i)
		}
	}
	if len(named) > 0 {
		if d, ok := checkScopedNulls(text, t, named, ev); ok {
			return d
		}
		var bad []string
		for _, i := range named {
			if nulls[i] > 0 {
				bad = append(bad, fmt.Sprintf("%s (%d)", t.Columns[i], nulls[i]))
			}
		}
		if len(bad) > 0 {
			ev.Columns = bad
			return decided(KindNoNull, false, ev, "NULL or empty values in the named column(s) %s", strings.Join(bad, ", "))
		}
		return undecided(KindNoNull, "the named columns have no NULL, other columns do: %s", strings.Join(withNull, ", "))
	}
	if len(t.Columns) == 1 || nullUnscoped.MatchString(text) {
		return decided(KindNoNull, false, ev, "NULL or empty values in %s", strings.Join(withNull, ", "))
	}
	return undecided(KindNoNull, "NULLs in %s; which columns the requirement covers is not stated by name", strings.Join(withNull, ", "))
}

// packedNullRe finds an empty field in a cell holding a STRUCT or ARRAY
// written out ({'n': None, ...}, [1, null]).
var packedNullRe = regexp.MustCompile(`(?i)(?:[:\[,]\s*)(?:none|null|nan)\s*[,}\]]`)

// packedNull returns the first column holding a packed value (a cell
// that begins with { or [) with an empty field, and the cell; -1 when
// none does.
func packedNull(t *Table) (int, string) {
	for _, r := range t.Rows {
		for i, c := range r {
			raw := strings.TrimSpace(c.Raw)
			if raw != "" && (raw[0] == '{' || raw[0] == '[') && packedNullRe.MatchString(raw) {
				return i, raw
			}
		}
	}
	return -1, ""
}

// findColumn returns the column whose name equals id up to case and
// separators, or -1.
func findColumn(t *Table, id string) int {
	n := normName(id)
	for i, c := range t.Columns {
		if normName(c) == n {
			return i
		}
	}
	return -1
}

// --- column exists ---

// statistics are tokens naming a summary statistic; a column computing a
// different statistic than the rubric asks for does not match it.
var statistics = setOf("mean p5 p10 p25 p50 p75 p90 p95 p99 sd iqr min max count pct sum prank ci")

// grouping marks rubric text about a grouping column (a stratum, a
// category): such columns are named freely ("outcome" for a discharge
// group), so code never declares them absent.
var grouping = setOf("group subgroup grouping category stratification stratum strata tier bin quartile quintile tertile decile " +
	"status outcome disposition type class destination label section cohort")

// roleWords name the part a column plays in a long-format result (the
// measure's name, its kind, an identifier) or hedge an example ("'value'
// or similar"), not a quantity. A requirement that names its column by
// these and generic words alone ("Column for primary values (e.g.,
// 'value', 'result')", "Column 'metric_name' or similar") is met as well
// by a wide result that holds each value in a column of its own, so no
// column name shows it unmet.
var roleWords = setOf("measure measures measurement similar name type kind identification identifier indicator")

// engineName matches the names engines give unnamed expressions
// (BigQuery's f0_, col_1, expr_2).
var engineName = regexp.MustCompile(`(?i)^(?:col(?:umn)?|f|field|c|expr|_col)_?\d+_?$|^f\d+_$`)

// genericWords name no quantity (besides the stopwords: value, result,
// metric).
var genericWords = setOf("col column field output stat measure var variable expr f c")

// GenericName reports a column name that says nothing of what the column
// holds: an engine's name for an unnamed expression, or generic words and
// numbers only (result_metric_1, value_2).
func GenericName(name string) bool {
	if engineName.MatchString(name) {
		return true
	}
	ws := Tokens(name)
	for _, w := range ws {
		if !genericWords[w] && !onlyNumbers([]string{w}) {
			return false
		}
	}
	return len(ws) > 0
}

// scored is a candidate column's fit to a rubric text.
type scored struct {
	col   int
	how   string // exact, canonical, similar
	score float64
	// full reports a column holding every word of the concept that is
	// not a qualifier.
	full bool
}

// rankColumns scores the candidate columns against the example names and
// the description of one rubric text, best first. Exact names score 10,
// names equal up to spelling 5, the rest the F1 of their token overlap.
func rankColumns(cols []string, cands []int, examples []string, desc tokenSet) []scored {
	exNorm := map[string]bool{}
	exKeys := map[string]bool{}
	exSeqs := map[string]bool{}
	concept := tokenSet{}
	for _, e := range examples {
		exNorm[normName(e)] = true
		ts := newTokenSet(e)
		if len(ts) > 0 {
			exKeys[ts.key()] = true
			exSeqs[strings.Join(Tokens(e), " ")] = true
		}

		for t, w := range ts {
			concept[t] = w
		}
	}
	for t, w := range desc {
		concept[t] = w
	}
	var out []scored
	for _, i := range cands {
		cs := newTokenSet(cols[i])
		m := scored{col: i}
		switch {
		case exNorm[normName(cols[i])]:
			m.how, m.score = "exact", 10
		case len(cs) > 0 && onlyNumbers(Tokens(cols[i])):
			// col_1 is not metric_1_name: only a position is left.
			m.how = "similar"
		case len(cs) > 0 && exSeqs[strings.Join(Tokens(cols[i]), " ")]:
			m.how, m.score = "canonical", 5
		case len(cs) > 0 && exKeys[cs.key()]:
			// The same words in another order ("los_p75" for
			// "p75_los_days" without the unit): the recorded judge rejects
			// a third of these, so they only bind values, never pass a
			// column check by themselves.
			m.how, m.score = "reordered", 4.5
		default:
			m.how, m.score = "similar", f1(cs, concept)
			m.full = covers(cs, concept)
		}
		out = append(out, m)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}

// covers reports whether col holds every token of concept that is not a
// qualifier.
func covers(col, concept tokenSet) bool {
	n := 0
	for t := range concept {
		if qualifiers[t] {
			continue
		}
		if _, ok := col[t]; !ok {
			return false
		}
		n++
	}
	return n > 0
}

// key is the sorted set of tokens: equal keys mean names equal up to
// spelling, order and synonyms.
func (ts tokenSet) key() string {
	keys := make([]string, 0, len(ts))
	for t := range ts {
		keys = append(keys, t)
	}
	sort.Strings(keys)
	return strings.Join(keys, " ")
}

// f1 is the weighted F1 of a column's tokens against a concept's, scaled
// down when the two name different statistics (a mean for a median).
func f1(col, concept tokenSet) float64 {
	ov := col.overlap(concept)
	if ov == 0 {
		return 0
	}
	p, r := ov/col.total(), ov/concept.total()
	f := 2 * p * r / (p + r)
	cs, ks := statsOf(col), statsOf(concept)
	if len(cs) > 0 && len(ks) > 0 && !intersects(cs, ks) {
		f *= 0.3
	}
	return f
}

// leadingStatistic is the statistic a text is about: the first specific
// one it names ("IQR of stay averages" is an IQR, not a mean), else a rate,
// else a count ("total mortality rate" is a rate: "total" also reads as a
// count).
func leadingStatistic(text string) string {
	var rate, count bool
	for _, t := range Tokens(text) {
		switch {
		case t == "pct":
			rate = true
		case t == "count":
			count = true
		case statistics[t]:
			return t
		}
	}
	switch {
	case rate:
		return "pct"
	case count:
		return "count"
	}
	return ""
}

// namedStatistic is the statistic a value leaf asks for: the one the
// nearest text naming one names. The parent names the value ("Median time
// to death", "Validate 95th Percentile Lab Instability Score") and the
// leaf states the band, sometimes with a remark ("The score represents a
// count of unstable labs"), so ancestors come first, nearest first. A "%"
// states the band's unit, not what the value computes, so it does not
// count.
func namedStatistic(texts []string) string {
	for _, text := range texts {
		text = strings.NewReplacer("%", " ", "(%)", " ").Replace(stripBands(stripIdentifiers(text)))
		if s := leadingStatistic(text); s != "" {
			return s
		}
	}
	return ""
}

// statCompatible reports whether a column computing the statistics cs may
// hold the statistic lead: it names lead, or a statistic lead is made of
// (the quartiles of an IQR, a percentile for a percentile rank), or a rate
// for a mean (a rate is the mean of an indicator) and back.
func statCompatible(lead string, cs map[string]bool) bool {
	if cs[lead] {
		return true
	}
	for c := range cs {
		switch {
		case lead == "iqr" && (c == "p25" || c == "p75"):
			return true
		case lead == "prank" && isPercentile(c), isPercentile(lead) && c == "prank":
			return true
		case lead == "mean" && c == "pct", lead == "pct" && c == "mean":
			return true
		}
	}
	return false
}

// statisticColumns keeps the candidate columns that may hold the statistic
// lead: a column naming another statistic is never it (average_mortality_rate
// for "IQR of mortality", a death count for "median time to death"), and
// when some columns name the statistic, a column naming none is not it
// either. Without a named statistic every candidate stays.
func statisticColumns(t *Table, cands []int, lead string) []int {
	if lead == "" {
		return cands
	}
	var named, silent []int
	strict := false // some column names the statistic itself
	for _, i := range cands {
		cs := statsOf(newTokenSet(t.Columns[i]))
		switch {
		case len(cs) == 0:
			silent = append(silent, i)
		case lead == "iqr" && !cs["iqr"]:
			// A quartile is part of an IQR, not its value: a band on the
			// IQR does not bound q1 or q3.
		case statCompatible(lead, cs):
			named = append(named, i)
			strict = strict || !rateOrMean(lead, cs)
		}
	}
	switch {
	case lead == "ci":
		// A column naming no statistic may hold a mean or a count, never
		// the bounds of a confidence interval.
		return named
	case len(named) > 0 && !strict:
		// Only a mean for a rate, or a rate for a mean: a rate is the
		// mean of an indicator, so either may hold it, and so may a
		// column naming no statistic ("in_hospital_mortality" beside
		// "avg_length_of_stay" for a mortality rate): the names decide.
		out := append(named, silent...)
		sort.Ints(out)
		return out
	case len(named) > 0:
		return named
	}
	return silent
}

// rateOrMean reports a column whose statistics hold lead only as a rate
// holds a mean or a mean a rate.
func rateOrMean(lead string, cs map[string]bool) bool {
	return !cs[lead] && (lead == "pct" && cs["mean"] || lead == "mean" && cs["pct"])
}

// statName spells a statistic token for an explanation.
func statName(s string) string {
	switch {
	case s == "pct":
		return "rate"
	case s == "iqr", s == "sd":
		return strings.ToUpper(s)
	case s == "p50":
		return "median"
	case s == "prank":
		return "percentile rank"
	case s == "ci":
		return "confidence interval"
	case isPercentile(s):
		return s[1:] + "th percentile"
	}
	return s
}

func statsOf(ts tokenSet) map[string]bool {
	out := map[string]bool{}
	for t := range ts {
		if statistics[t] {
			out[t] = true
		}
	}
	return out
}

func intersects(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

// related reports whether two tokens may name the same thing: equal, or
// sharing a prefix of four letters ("init" and "initiation"), or one a
// percentile and the other "percentile".
func related(a, b string) bool {
	if a == b {
		return true
	}
	for _, p := range [][2]string{{a, b}, {b, a}} {
		// "percentile_70" reads as the 70th percentile or the percentile
		// rank of 70: either may be the rank asked for.
		if p[0] == "prank" && isPercentile(p[1]) {
			return true
		}
		if p[0] == "prank" && p[1] == "rank" {
			return true
		}
		// An interquartile range is made of the quartiles.
		if p[0] == "iqr" && (p[1] == "p25" || p[1] == "p75" || p[1] == "quartile") {
			return true
		}
	}
	n := min(len(a), len(b))
	return n >= 4 && a[:4] == b[:4]
}

// isPercentile reports a token such as p25 or p90.
func isPercentile(t string) bool {
	if len(t) < 2 || len(t) > 3 || t[0] != 'p' {
		return false
	}
	_, err := strconv.Atoi(t[1:])
	return err == nil
}

// columnBoilerplate is leaf wording that describes the check, not the
// column.
var columnBoilerplate = regexp.MustCompile(`(?i)\b(?:primary|secondary|main|answer|result|output|required|the|a|an)?\s*columns?\s*(?:name)?\s*(?:exists?|is present|must exist|present)?\b|\bexists?\b|\bif applicable\b`)

func allColumns(t *Table) []int {
	out := make([]int, len(t.Columns))
	for i := range out {
		out[i] = i
	}
	return out
}

func checkColumn(leaf *rubric.Node, t *Table) CodeDecision {
	text := leaf.Requirements
	examples := Identifiers(text)
	descText := columnBoilerplate.ReplaceAllString(stripIdentifiers(text), " ")
	desc := newTokenSet(descText)
	ev := &Evidence{Rows: t.TotalRows, Columns: t.Columns}
	if len(examples) == 0 && len(desc) == 0 {
		return undecided(KindColumn, "the requirement names no column and describes none")
	}
	ranked := rankColumns(t.Columns, allColumns(t), examples, desc)
	if best := ranked[0]; best.how == "exact" || best.how == "canonical" {
		ev.Column, ev.Match = t.Columns[best.col], best.how
		what := map[string]string{"exact": "is named as required", "canonical": "has a required name up to spelling and synonyms"}[best.how]
		return decided(KindColumn, true, ev, "column %q %s", t.Columns[best.col], what)
	}
	if c, ex := coreMatch(t.Columns, examples, desc); c >= 0 {
		ev.Column, ev.Match = t.Columns[c], "core"
		return decided(KindColumn, true, ev, "column %q names the same quantity as %q (the same words up to spelling, the same statistic)", t.Columns[c], ex)
	}
	if c, ex := spanMatch(t.Columns, examples, desc); c >= 0 {
		ev.Column, ev.Match = t.Columns[c], "span"
		return decided(KindColumn, true, ev, "column %q names the quantity of %q with qualifiers the requirement itself uses", t.Columns[c], ex)
	}
	if c, ex := statisticMatch(t, examples, descText); c >= 0 {
		ev.Column, ev.Match = t.Columns[c], "statistic"
		return decided(KindColumn, true, ev, "column %q is the only column computing the statistic %q asks for (its name is the statistic alone: the subject is the result's)", t.Columns[c], ex)
	}
	concept := tokenSet{}
	for _, e := range examples {
		for k, w := range newTokenSet(e) {
			concept[k] = w
		}
	}
	for k, w := range desc {
		concept[k] = w
	}
	for k := range concept {
		if grouping[k] {
			if c, ex := groupingMatch(t, examples, desc); c >= 0 {
				ev.Column, ev.Match = t.Columns[c], "grouping"
				return decided(KindColumn, true, ev, "column %q holds group labels and names the grouping %q asks for", t.Columns[c], ex)
			}
			// Grouping columns are named freely ("outcome" for a discharge
			// group); whether one fits is a judgement (the recorded judge
			// rejects half the candidates code would accept).
			return undecided(KindColumn, "the requirement asks for a grouping column, which may be named freely")
		}
	}
	// A column, or a row label of a long-format result ("metric",
	// "value"), that shares a word with the requirement may be the one.
	if c := relatedText(t, concept); c != "" {
		return undecided(KindColumn, "%q is related to the requirement but not clearly the required column", c)
	}
	// The absence of a name shows the quantity absent only where the
	// requirement names a quantity, and every column's name says what it
	// holds.
	if !namesQuantity(concept) {
		return undecided(KindColumn, "the requirement names its column by its role in the layout only {%s}, which a result may meet without such a name", concept.key())
	}
	for _, c := range t.Columns {
		if GenericName(c) {
			return undecided(KindColumn, "column %q has a generic name (an engine's for an unnamed expression, or generic words), which says nothing of what it holds", c)
		}
	}
	ev.Match = "absent"
	return decided(KindColumn, false, ev, "no column relates to the required quantity {%s}; the result has %s",
		concept.key(), strings.Join(t.Columns, ", "))
}

// namesQuantity reports a concept with a word that is neither a role in
// the layout (roleWords) nor a number.
func namesQuantity(concept tokenSet) bool {
	for k := range concept {
		if !roleWords[k] && !onlyNumbers([]string{k}) {
			return true
		}
	}
	return false
}

// coreMatch returns the first column that names the same quantity as one
// of the examples, or as the description: each word that is neither a
// qualifier nor a statistic has a related word on the other side, both
// ways, and the statistics agree ("mortality_percentage" for
// "in_hospital_mortality_percent", "neurologic_complication_rate" for
// "neuro_complication_rate_pct"). -1 when none does.
func coreMatch(cols, examples []string, desc tokenSet) (int, string) {
	type want struct {
		text  string
		words []string
		stats map[string]bool
	}
	var wants []want
	split := func(ts tokenSet) ([]string, map[string]bool) {
		var words []string
		quantity := false
		for _, w := range ts.core() {
			if !statistics[w] {
				words = append(words, w)
				quantity = quantity || !grouping[w]
			}
		}
		if !quantity {
			// A grouping column ("metric_type", "cohort_type") is named
			// freely: the same words do not make the same grouping.
			return nil, nil
		}
		return words, statsOf(ts)
	}
	// The time unit the examples state holds for the description too.
	unit := ""
	for _, e := range examples {
		w, st := split(newTokenSet(e))
		wants = append(wants, want{e, w, st})
		if unit == "" {
			unit = timeUnit(e)
		}
	}
	if len(desc) > 0 {
		w, st := split(desc)
		wants = append(wants, want{"the description", w, st})
	}
	for i, c := range cols {
		cw, cst := split(newTokenSet(c))
		if len(cw) == 0 || onlyNumbers(cw) {
			continue
		}
		for _, w := range wants {
			if len(w.words) == 0 || !sameStats(w.stats, cst) {
				continue
			}
			if u, v := timeUnit(c), unit; u != "" && v != "" && u != v {
				continue // avg_icu_los_hours is not the stay in days
			}
			if coveredBy(w.words, cw) && coveredBy(cw, w.words) {
				return i, w.text
			}
		}
	}
	return -1, ""
}

// spanMatch returns the first column that names the quantity of one of
// the examples with qualifiers the requirement itself uses: it holds
// every word of that example, the same statistic, and no word that no
// example and not the description uses ("median_peak_glucose" between
// the examples "median_glucose" and "median_peak_glucose_dka"). A
// negation ("non", "no") counts only where the example has it: it
// turns a group into every other. -1 when none does.
func spanMatch(cols, examples []string, desc tokenSet) (int, string) {
	vocab := tokenSet{}
	for k, w := range desc {
		vocab[k] = w
	}
	type want struct {
		text  string
		words []string
		stats map[string]bool
		neg   bool
	}
	var wants []want
	for _, e := range examples {
		ts := newTokenSet(e)
		for k, w := range ts {
			vocab[k] = w
		}
		var words []string
		neg, group := false, false
		for _, w := range ts.core() {
			neg = neg || negations[w]
			group = group || grouping[w]
			if !statistics[w] {
				words = append(words, w)
			}
		}
		if len(words) > 0 && !group {
			// (A grouping column is named freely: see groupingMatch.)
			wants = append(wants, want{e, words, statsOf(ts), neg})
		}
	}
	// The time units the requirement states, in its examples or words.
	units := map[string]bool{}
	for t := range vocab {
		if timeUnits[t] {
			units[t] = true
		}
	}
	for i, c := range cols {
		ts := newTokenSet(c)
		var words []string
		neg := false
		for _, w := range ts.core() {
			neg = neg || negations[w]
			if !statistics[w] {
				words = append(words, w)
			}
		}
		if len(words) == 0 || onlyNumbers(words) || slices.ContainsFunc(words, func(w string) bool { return grouping[w] }) {
			continue
		}
		vocabWords := make([]string, 0, len(vocab))
		for k := range vocab {
			vocabWords = append(vocabWords, k)
		}
		if !coveredBy(words, vocabWords) {
			continue
		}
		for _, w := range wants {
			if neg && !w.neg || !sameStats(w.stats, statsOf(ts)) {
				continue
			}
			if u := timeUnit(c); u != "" && len(units) > 0 && !units[u] {
				continue // los_hours is not the stay in days
			}
			if coveredBy(w.words, words) {
				return i, w.text
			}
		}
	}
	return -1, ""
}

// timeUnit is the time unit a name states, "" if none.
func timeUnit(name string) string {
	for _, t := range Tokens(name) {
		if timeUnits[t] {
			return t
		}
	}
	return ""
}

// sameStats reports two sets of statistics that name the same thing: both
// empty, or one compatible with the other's every statistic.
func sameStats(a, b map[string]bool) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	for s := range a {
		if !statCompatible(s, b) {
			return false
		}
	}
	return true
}

func relatedTo(name string, concept tokenSet) bool {
	for _, a := range Tokens(name) {
		if _, err := strconv.Atoi(a); err == nil {
			continue
		}
		for b := range concept {
			if related(a, b) {
				return true
			}
		}
	}
	return false
}

// relatedText returns a column name or text cell sharing a related token
// with the concept, or "".
func relatedText(t *Table, concept tokenSet) string {
	rel := func(s string) bool { return relatedTo(s, concept) }
	for _, c := range t.Columns {
		if rel(c) {
			return c
		}
	}
	for _, r := range t.Rows[:min(len(t.Rows), 50)] {
		for _, c := range r {
			if !c.Null && !c.IsNum && rel(c.Raw) {
				return c.Raw
			}
		}
	}
	return ""
}

// --- value bands ---

// bandBoilerplate is wording around a band that does not describe the
// value.
var bandBoilerplate = regexp.MustCompile(`(?i)\b(?:clinically|plausible|acceptable|range|within|values?|are|is|in|an|the|for|this|cohort)\b`)

// flagName marks indicator columns (is_dka, has_shock, icu_flag): their
// 0/1 values are groups, not measured values.
var flagName = regexp.MustCompile(`(?i)^(?:is|has|was)_|_flag$|^flag_`)

// idName marks identifier columns (itemid, subject_id, hadm_id): their
// numbers name rows, they measure nothing (a respiratory-rate band was once
// bound to itemid).
var idName = regexp.MustCompile(`(?i)^(?:.*[_ ])?(?:item|subject|hadm|stay|icustay|patient|caregiver|transfer|specimen|order)?[_ ]?ids?$`)

// valueColumns returns the columns that may hold a checked value: every
// non-NULL value is a number (a column of NULLs qualifies too: its value is
// missing, not of another kind), and the column is not an indicator.
func valueColumns(t *Table) []int {
	t.valueOnce.Do(func() { t.valueCols = valueColumnsOf(t) })
	return t.valueCols
}

func valueColumnsOf(t *Table) []int {
	var out []int
	for i := range t.Columns {
		if flagName.MatchString(t.Columns[i]) || idName.MatchString(t.Columns[i]) {
			continue
		}
		ok := true
		for _, c := range t.Values(i) {
			if !c.Null && !c.IsNum {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

// allNull reports a result without a single value.
func allNull(t *Table) bool {
	for _, r := range t.Rows {
		for _, c := range r {
			if !c.Null {
				return false
			}
		}
	}
	return true
}

// bindingTexts returns the texts that describe the value a band leaf
// checks: the leaf's ancestors below the value category, nearest first,
// then the leaf.
func bindingTexts(leaf *rubric.Node) []string {
	anc := leaf.Ancestors()
	var out []string
	for i := len(anc) - 1; i >= 2; i-- {
		out = append(out, anc[i].Requirements)
	}
	return append(out, leaf.Requirements)
}

// labelRe finds quoted group labels in rubric text: 'Discharged Home'.
var labelRe = regexp.MustCompile(`['"‘“]([^'"’”]{2,40})['"’”]`)

func checkBand(leaf *rubric.Node, t *Table) CodeDecision {
	bands := valueBands(leaf.Requirements)
	if len(bands) == 0 {
		return undecided(KindBand, "the ranges in the requirement describe the cohort (an age range), not the value")
	}
	texts := bindingTexts(leaf)
	if t.Truncated {
		return undecided(KindBand, "the result has %d rows; only %d were read", t.TotalRows, len(t.Rows))
	}
	if allNull(t) {
		return decided(KindBand, false, &Evidence{Rows: t.TotalRows}, "the result holds no value: every cell is NULL")
	}
	if d, ok := checkAggregate(leaf, t, texts, bands); ok {
		return d
	}
	cols, how, why := t.bindingOf(leaf, texts)
	tree := treeText(leaf)
	if len(cols) == 0 {
		return undecided(KindBand, "%s", why)
	}
	if other := sameCells(leaf, t); other != nil {
		return undecided(KindBand, "column %q answers both this value and %q (%s): the result does not tell them apart",
			t.Columns[cols[0]], other.ID, firstLine(strings.Join(strings.Fields(valueNode(other).Requirements), " "), 80))
	}
	// When more than one column fits equally well, decide only if the
	// verdict is the same whichever is meant.
	var first CodeDecision
	for i, col := range cols {
		d := bandOnColumn(t, col, how, texts, tree, bands)
		if !d.Decided {
			return d
		}
		if i == 0 {
			first = d
			continue
		}
		if d.Pass != first.Pass {
			return undecided(KindBand, "columns %q and %q both fit, and the verdict differs between them", t.Columns[cols[0]], t.Columns[col])
		}
		first.Explanation += "; " + d.Explanation
	}
	if len(cols) > 1 {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = t.Columns[c]
		}
		first.Evidence.Match = "tied"
		first.Explanation = fmt.Sprintf("whichever of %s is meant: %s", strings.Join(names, ", "), first.Explanation)
	}
	return first
}

// cohortContext is text just before a range that makes it the cohort's
// ages ("(female, 63-73, transfer)", "aged 40-50"), not the value's band.
var cohortContext = regexp.MustCompile(`(?i)(?:\bage[ds]?|\bfemales?|\bmales?|\bwomen|\bmen|\bpatients)\W{0,3}$`)

// valueBands returns the bands of a leaf that bound its value: a range
// written as the cohort's ages is not one.
func valueBands(text string) []Band {
	all := ParseBands(text)
	out := make([]Band, 0, len(all))
	for _, b := range all {
		if cohortRange(text, b) {
			continue
		}
		out = append(out, b)
	}
	return out
}

// bandOnColumn decides the leaf's band or bands on one column.
func bandOnColumn(t *Table, col int, how string, texts, tree []string, bands []Band) CodeDecision {
	ev := &Evidence{Rows: t.TotalRows, Column: t.Columns[col], Match: how}
	if u, v, ok := unitConflict(t.Columns[col], texts, bands); ok {
		return undecided(KindBand, "column %q is in %ss, the requirement in %ss", t.Columns[col], u, v)
	}
	labelled := len(bands) > 1
	for _, b := range bands {
		if b.Label == "" {
			labelled = false
		}
	}
	switch {
	case len(bands) == 1:
		rows, why := selectRows(t, texts, col, tree)
		if rows == nil {
			return undecided(KindBand, "%s", why)
		}
		return judgeValues(t, col, rows, bands[0], texts, ev)
	case labelled:
		var parts []string
		pass := true
		for _, b := range bands {
			rows := rowsLabelled(t, b.Label, col)
			if len(rows) == 0 {
				return undecided(KindBand, "no row of the result is labelled %q", b.Label)
			}
			d := judgeValues(t, col, rows, b, texts, &Evidence{})
			if !d.Decided {
				return d
			}
			pass = pass && d.Pass
			parts = append(parts, d.Explanation)
			ev.Values = append(ev.Values, d.Evidence.Values...)
		}
		for i, b := range bands {
			if i > 0 {
				ev.Band += "; "
			}
			ev.Band += b.String()
		}
		return decided(KindBand, pass, ev, "%s", strings.Join(parts, "; "))
	}
	return undecided(KindBand, "the requirement states %d ranges without saying which value each applies to", len(bands))
}

// bindColumns finds the result column a value leaf is about, from the
// names and descriptions in the leaf and its ancestors. It refuses to
// guess: with one clear winner it returns that column; with several
// columns that fit equally well (within the margin) it returns them all,
// for the caller to decide only if they agree; with none, the reason.
func bindColumns(t *Table, texts []string) ([]int, string, string) {
	cands := valueColumns(t)
	if len(cands) == 0 {
		return nil, "", "the result has no numeric column"
	}
	lead := namedStatistic(texts)
	if lead == "count" {
		cands = cohortCounts(t, cands, texts)
	}
	if cands = statisticColumns(t, cands, lead); len(cands) == 0 {
		return nil, "", fmt.Sprintf("no numeric column computes the %s the requirement names", statName(lead))
	}
	cands = negationFilter(t, cands, texts)
	// The nearest text alone first (the parent naming the value), then
	// with the leaf, then everything.
	var tries [][]string
	if len(texts) > 1 {
		tries = append(tries, texts[:1], []string{texts[0], texts[len(texts)-1]})
	}
	tries = append(tries, texts)
	var tied []int
	for _, try := range tries {
		var examples []string
		desc := tokenSet{}
		for _, text := range try {
			examples = append(examples, Identifiers(text)...)
			for k, w := range newTokenSet(bandBoilerplate.ReplaceAllString(stripBands(stripIdentifiers(text)), " ")) {
				desc[k] = w
			}
		}
		if len(examples) == 0 && len(desc) == 0 {
			continue
		}
		r := rankColumns(t.Columns, cands, examples, desc)
		second := 0.0
		if len(r) > 1 {
			second = r[1].score
		}
		switch best := r[0]; {
		case best.how != "similar" && best.score > second:
			return []int{best.col}, best.how, ""
		case best.score >= minBindScore && best.score-second >= minBindMargin,
			// The only column with every word ("los_gt_7" for "LOS > 7
			// days", not "los_le_7"): close scores, a clear difference.
			best.score >= minBindScore && best.full && (len(r) == 1 || !r[1].full):
			return []int{best.col}, best.how, ""
		case best.score >= minBindScore && tied == nil:
			// Every column the names do not tell from the best, however
			// weakly it fits: leaving one out because it falls short of
			// minBindScore would decide on the others when it may be
			// the one meant.
			for _, m := range r {
				if m.score > 0 && best.score-m.score < minBindMargin {
					tied = append(tied, m.col)
				}
			}
		}
	}
	if tied != nil {
		return tied, "similar", ""
	}
	if len(cands) == 1 && len(t.Columns) <= 2 && namesTheValue(t.Columns[cands[0]], texts) {
		return cands, "only", ""
	}
	if lead != "count" {
		// (A bare "n" may count the cohort, not what the band counts.)
		if c := onlyStatisticColumn(t, cands, lead); c >= 0 {
			return []int{c}, "statistic", ""
		}
	}
	if lead == "ci" {
		// The bounds of the interval (statisticColumns kept only
		// columns naming one): a band on "the bounds" holds for each,
		// decided only where they agree.
		return cands, "tied", ""
	}
	return nil, "", "no result column can be tied to the value with confidence"
}

// namesTheValue reports whether a column's name can hold the value the
// texts describe: it shares a word with them (a related one: "mortality"
// for "in-hospital mortality (%)", "p25" for "the 25th percentile", a
// rate for a share), or
// it names nothing but a position or a generic value ("f0_", "value",
// "result": a one-value answer to the question). A lone column named for
// another quantity ("percentile_90" for "hospital length of stay",
// "avg_length_of_stay" for a mortality rate) does not hold it: the value
// asked for is absent, which is the judge's call.
func namesTheValue(col string, texts []string) bool {
	concept := tokenSet{}
	for _, text := range texts {
		text = bandBoilerplate.ReplaceAllString(stripBands(text), " ")
		for k, w := range newTokenSet(text) {
			concept[k] = w
		}
	}
	var words []string
	for _, w := range Tokens(col) {
		if _, err := strconv.Atoi(w); err == nil || qualifiers[w] && w != "pct" || len(w) == 1 {
			continue // a position, a unit, a letter ("f0_", BigQuery's unnamed column)
		}
		words = append(words, w)
	}
	if len(words) == 0 {
		return true
	}
	for _, w := range words {
		for c := range concept {
			if related(w, c) {
				return true
			}
		}
	}
	return false
}

// Thresholds of bindColumn on the F1 token score: the best column must fit
// at least this well, and this much better than the next.
const (
	minBindScore  = 0.4
	minBindMargin = 0.2
)

// timeUnits are the units a duration column or band may be stated in.
var timeUnits = setOf("minute hour day week month year")

// unitConflict reports a column stating its time unit ("los_hours") where
// the requirement states another ("(Days)", "5-40 days") and not the
// column's: the numbers are then not comparable as written.
func unitConflict(col string, texts []string, bands []Band) (string, string, bool) {
	var cu string
	for _, t := range Tokens(col) {
		if timeUnits[t] {
			cu = t
		}
	}
	if cu == "" {
		return "", "", false
	}
	req := map[string]bool{}
	for _, text := range texts {
		for _, t := range Tokens(text) {
			if timeUnits[t] {
				req[t] = true
			}
		}
	}
	for _, b := range bands {
		for _, t := range Tokens(b.Unit) {
			if timeUnits[t] {
				req[t] = true
			}
		}
	}
	if req[cu] {
		return "", "", false
	}
	if len(req) == 0 {
		// The rubric states no unit: durations are meant in days (the
		// bands of length of stay, time to death); a column in hours or
		// minutes is not comparable as written.
		if cu == "day" {
			return "", "", false
		}
		return cu, "day (unstated)", true
	}
	for u := range req {
		return cu, u, true
	}
	return "", "", false
}

func stripBands(s string) string {
	for _, b := range ParseBands(s) {
		s = strings.Replace(s, b.Text, " ", 1)
	}
	return s
}

// selectRows returns the rows a band applies to: those labelled with a
// group the rubric text names, or every row when it names none. nil with a
// reason when the group it is about is not found in the result: it names
// a group no row is labelled with, or the result is one group that the
// rubric names apart from this requirement's.
func selectRows(t *Table, texts []string, col int, tree []string) (rows []int, why string) {
	var labels []string
	for _, text := range texts {
		for _, m := range labelRe.FindAllStringSubmatch(text, -1) {
			l := m[1]
			if bareIdent.MatchString(l) && strings.Contains(l, "_") {
				continue // a column name, not a group
			}
			if findColumn(t, l) >= 0 {
				continue
			}
			labels = append(labels, l)
		}
	}
	all := make([]int, len(t.Rows))
	for i := range all {
		all[i] = i
	}
	if len(labels) == 0 {
		// No quoted group: the rows whose label the text names
		// ("Validate Value for DKA Survivor LOS" for the row "DKA"), or
		// every row when it names none. A result of one group that the
		// rubric names elsewhere ("General Cohort AKI Rate") may be the
		// group this requirement is about, unnamed ("AKI rate" of the
		// cohort the question and the tree are about), or another: the
		// group is not found, and the judge reads the rubric.
		named, others := rowsNamed(t, texts, col, tree)
		switch {
		case len(named) > 0 && valueElsewhere(t, col, named):
			return nil, fmt.Sprintf("%s is NULL in the %d row(s) whose label the text names, and holds values in other rows: the result stacks sections, and the text may name another section in passing", t.Columns[col], len(named))
		case len(named) > 0:
			return named, ""
		case others != "" && len(t.Rows) == 1:
			return nil, fmt.Sprintf("the result holds one group, %q, which the rubric names elsewhere, and this requirement names no group of the result", others)
		}
		return all, ""
	}
	for _, l := range labels {
		if rows := rowsLabelled(t, l, col); len(rows) > 0 {
			return rows, ""
		}
	}
	if len(t.Rows) == 1 {
		// One row with no group label is the question's cohort, which
		// the quoted group may name ("for 'Sepsis'" in a sepsis
		// question); a row labelled as another group is not it.
		if l := rowLabel(t, 0, col); l != "" {
			return nil, fmt.Sprintf("the requirement is about %q, and the result's one row is labelled %q", labels[0], l)
		}
		return all, ""
	}
	return nil, fmt.Sprintf("the requirement is about %q, and no row of the result is labelled so", labels[0])
}

// rowLabel returns the first text cell of a row outside col (its group
// label), "" when it has none.
func rowLabel(t *Table, row, col int) string {
	for ci, c := range t.Rows[row] {
		if ci != col && !c.Null && !c.IsNum && len(labelWords(c.Raw)) > 0 {
			return c.Raw
		}
	}
	return ""
}

// rowsNamed returns the rows whose label (a text cell, with a word in it)
// the texts name, word for word. When none is named, others is a label
// the rubric's other texts name, "" if none.
func rowsNamed(t *Table, texts []string, col int, tree []string) (named []int, others string) {
	near := tokenSeq(texts)
	far := tokenSeq(tree)
	for ri, r := range t.Rows {
		for ci, c := range r {
			if ci == col || c.Null || c.IsNum {
				continue
			}
			lt := labelWords(c.Raw)
			if len(lt) == 0 {
				continue
			}
			if containsSeq(near, lt) {
				named = append(named, ri)
				break
			}
			if containsNegated(near, lt) {
				// "Non-insulin agents" is about every row but Insulin's.
				for rj := range t.Rows {
					if rj != ri {
						named = append(named, rj)
					}
				}
				return named, ""
			}
			if others == "" && containsSeq(far, lt) {
				others = c.Raw
			}
		}
	}
	if len(named) > 0 {
		others = ""
	}
	return named, others
}

// tokenSeq is the tokens of the texts, in order, a "|" between texts so
// no sequence spans two.
func tokenSeq(texts []string) []string {
	var out []string
	for _, text := range texts {
		out = append(out, Tokens(text)...)
		out = append(out, "|")
	}
	return out
}

// labelWords are the words of a row label that name its group: tokens
// with two letters or more ("General (59-69, M)" is "general"; the ages
// and the sex qualify it), and statistics ("95th_percentile_instability"
// is a percentile's row, not the instability score's).
func labelWords(label string) []string {
	var out []string
	for _, t := range Tokens(label) {
		if statistics[t] {
			out = append(out, t)
			continue
		}
		letters := 0
		for _, r := range t {
			if r >= 'a' && r <= 'z' {
				letters++
			}
		}
		if letters >= 2 {
			out = append(out, t)
		}
	}
	return out
}

// negations turn a group's name into everyone else: "non-insulin",
// "no shock".
var negations = setOf("non no not without excluding except other")

// containsSeq reports whether seq occurs in ts, contiguously, and not
// negated.
func containsSeq(ts, seq []string) bool {
	i := findSeq(ts, seq)
	return i >= 0 && (i == 0 || !negations[ts[i-1]])
}

// containsNegated reports whether seq occurs in ts only negated.
func containsNegated(ts, seq []string) bool {
	i := findSeq(ts, seq)
	return i > 0 && negations[ts[i-1]]
}

// findSeq returns where seq first occurs in ts, contiguously, or -1.
func findSeq(ts, seq []string) int {
	if len(seq) == 0 {
		return -1
	}
outer:
	for i := 0; i+len(seq) <= len(ts); i++ {
		for j := range seq {
			if ts[i+j] != seq[j] {
				continue outer
			}
		}
		return i
	}
	return -1
}

// treeTexts caches treeText per rubric tree: trees are immutable once
// parsed.
var treeTexts sync.Map // root *rubric.Node -> []string

// treeText returns every requirement of the leaf's tree: what the rubric
// distinguishes anywhere.
func treeText(leaf *rubric.Node) []string {
	root := leaf
	for root.Parent != nil {
		root = root.Parent
	}
	if v, ok := treeTexts.Load(root); ok {
		return v.([]string)
	}
	var out []string
	var walk func(n *rubric.Node)
	walk = func(n *rubric.Node) {
		out = append(out, n.Requirements)
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
	treeTexts.Store(root, out)
	return out
}

// rowsLabelled returns the rows whose text cells equal or contain label;
// failing that, the rows of the one group label whose words the label
// holds, or that holds the label's words ("Facility" for 'Discharged to
// Facility', "In-hospital death" for 'In-Hospital Mortality' or
// 'Mortality', up to spelling and synonyms). Two labels that match so
// match neither: the label does not tell them apart.
func rowsLabelled(t *Table, label string, col int) []int {
	want := normName(label)
	if want == "" {
		return nil
	}
	var out []int
	for ri, r := range t.Rows {
		for ci, c := range r {
			if ci == col || c.Null || c.IsNum {
				continue
			}
			if n := normName(c.Raw); n == want || strings.Contains(n, want) {
				out = append(out, ri)
				break
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	lw := labelWords(label)
	if len(lw) == 0 {
		return nil
	}
	match := ""
	for ri, r := range t.Rows {
		for ci, c := range r {
			if ci == col || c.Null || c.IsNum {
				continue
			}
			cw := labelWords(c.Raw)
			if len(cw) == 0 || !(coveredBy(cw, lw) || coveredBy(lw, cw)) {
				continue
			}
			if key := strings.Join(cw, " "); match == "" || match == key {
				match = key
				out = append(out, ri)
				break
			}
			return nil // two groups fit
		}
	}
	return out
}

// valueElsewhere reports rows of a column that are all NULL where the
// result stacks sections: other rows hold the column's values, and
// another column holds values in every one of these rows and in none of
// those (a distribution section with its own measures beside an outcome
// section). Rows matched by a word of the text may be a section the text
// mentions in passing ("hemorrhagic stroke can have long stays" naming a
// distribution section labelled "stroke"): their NULLs are not the value
// asked for missing. A group's row that is NULL where the others are not,
// with nothing of its own (an empty cohort), is its value missing.
func valueElsewhere(t *Table, col int, rows []int) bool {
	chosen := make(map[int]bool, len(rows))
	for _, ri := range rows {
		if !t.Rows[ri][col].Null {
			return false
		}
		chosen[ri] = true
	}
	var carriers []int
	for ri, r := range t.Rows {
		if !chosen[ri] && !r[col].Null {
			carriers = append(carriers, ri)
		}
	}
	if len(carriers) == 0 {
		return false
	}
	for c := range t.Columns {
		if c == col {
			continue
		}
		own := true
		for _, ri := range rows {
			own = own && !t.Rows[ri][c].Null
		}
		for _, ri := range carriers {
			own = own && t.Rows[ri][c].Null
		}
		if own {
			return true
		}
	}
	return false
}

// judgeValues decides a band over the given rows of a column.
func judgeValues(t *Table, col int, rows []int, b Band, texts []string, ev *Evidence) CodeDecision {
	ev.Band = b.String()
	name := t.Columns[col]
	rate := rateBand(b, texts)
	// A rate band in percent over a column of fractions: read each value
	// as a fraction when the name says it is one, else decide only where
	// both readings agree (1.0 lies in "0-70%" as written, 100% does not).
	fraction := rate && fractionValues(t, col, rows)
	var in, out, null, empty int
	var scaledIn, disagree int
	for _, ri := range rows {
		c := t.Rows[ri][col]
		if len(ev.Values) < maxEvidenceValues {
			if c.Null {
				ev.Values = append(ev.Values, "NULL")
			} else {
				ev.Values = append(ev.Values, fmtNum(c.Num))
			}
		}
		inside := !c.Null && b.Contains(c.Num)
		if fraction && !c.Null {
			scaled := b.Contains(c.Num * 100)
			if fractionName(name) {
				inside = scaled
			} else if scaled != inside {
				disagree++
			}
		}
		switch {
		case c.Null:
			null++
		case rate && emptyCohort(t, ri, col):
			// No one to take a rate of: the 0 is no rate, whatever the
			// band admits.
			out++
			empty++
		case inside:
			in++
		default:
			out++
			if !fraction && scaleAmbiguous(b, c.Num) {
				scaledIn++
			}
		}
	}
	vals := strings.Join(ev.Values, ", ")
	if len(rows) > maxEvidenceValues {
		vals += ", …"
	}
	switch {
	case empty > 0 && empty == len(rows)-null:
		return decided(KindBand, false, ev, "%s = %s is the rate of an empty cohort (every count in its row is 0), not a value within %s", name, vals, b)
	case disagree > 0:
		return undecided(KindBand, "%s = %s reads as a fraction or as a percentage, and only one reading lies within %s", name, vals, b)
	case in == 0 && out == 0:
		return decided(KindBand, false, ev, "%s has no value (NULL) in the rows checked", name)
	case scaledIn > 0:
		return undecided(KindBand, "%s = %s lies outside %s, but inside it read as a %s", name, vals, b, scaleWord(b))
	case out == 0 && null == 0 && fraction && fractionName(name):
		return decided(KindBand, true, ev, "%s = %s, fractions, lies within %s as a percentage", name, vals, b)
	case out == 0 && null == 0:
		return decided(KindBand, true, ev, "%s = %s lies within %s", name, vals, b)
	case in == 0 && null == 0 && fraction && fractionName(name):
		return decided(KindBand, false, ev, "%s = %s, fractions, lies outside %s as a percentage", name, vals, b)
	case in == 0 && null == 0:
		return decided(KindBand, false, ev, "%s = %s lies outside %s", name, vals, b)
	case len(rows) == 1:
		return decided(KindBand, false, ev, "%s = %s is not within %s", name, vals, b)
	}
	return undecided(KindBand, "%s = %s: %d of %d values within %s", name, vals, in, len(rows), b)
}

// rateBand reports a band on a rate in percent: stated in percent, or on
// a 0-100 scale (beyond 1, at most 100) about a rate, share, proportion
// or percentage. Its values may be written as fractions.
func rateBand(b Band, texts []string) bool {
	if b.Percent {
		return true
	}
	if b.Lo < 0 || b.Hi <= 1 || b.Hi > 100 {
		return false
	}
	for _, text := range texts {
		for _, t := range Tokens(text) {
			if t == "pct" {
				return true
			}
		}
	}
	return false
}

// fractionValues reports a column whose values in the rows are all between
// 0 and 1, and not all 0: it may hold fractions.
func fractionValues(t *Table, col int, rows []int) bool {
	some := false
	for _, ri := range rows {
		c := t.Rows[ri][col]
		if c.Null {
			continue
		}
		if c.Num < 0 || c.Num > 1 {
			return false
		}
		some = some || c.Num != 0
	}
	return some
}

// fractionWords name a fraction (0-1) rather than a percentage.
var fractionWords = regexp.MustCompile(`(?i)(?:^|[_ ])(?:fraction|frac|proportion|prop|share|ratio)(?:$|[_ ])`)

// fractionName reports a column named as a fraction and not as a
// percentage ("mv_fraction", not "mortality_pct").
func fractionName(name string) bool {
	l := strings.ToLower(name)
	return fractionWords.MatchString(l) && !strings.Contains(l, "pct") && !strings.Contains(l, "percent")
}

// emptyCohort reports a row of a rate whose value is 0 and whose cohort is
// empty: every number in the row is 0, counts among them, or a column
// counting the cohort (total_admissions, n_patients) is 0.
func emptyCohort(t *Table, ri, col int) bool {
	r := t.Rows[ri]
	if c := r[col]; c.Null || !c.IsNum || c.Num != 0 {
		return false
	}
	allZero, counts := true, 0
	for i, c := range r {
		if !c.IsNum || i == col {
			continue
		}
		if _, ok := newTokenSet(t.Columns[i])["count"]; ok {
			counts++
		}
		if c.Num != 0 {
			allZero = false
		} else if denominatorName(t.Columns[i]) {
			return true
		}
	}
	// Only counts tell an empty cohort: a row of rates that are all 0
	// (no prevalence early, none late, no change) is a real answer.
	return allZero && counts > 0
}

// denominatorName reports a column counting a cohort: a count of patients,
// admissions or stays, not of events.
func denominatorName(name string) bool {
	ts := newTokenSet(name)
	if _, ok := ts["count"]; !ok {
		return false
	}
	for _, w := range []string{"patient", "admission", "stay", "cohort"} {
		if _, ok := ts[w]; ok {
			return true
		}
	}
	return len(ts) == 1 // "n", "total"
}

// scaleAmbiguous reports a value that is outside the band as written but
// inside it as a fraction of a percent band (0.35 for 10-50%) or as a
// percent of a fraction band (35 for 0.1-0.5): the rubric and the answer
// may differ only in scale, which code does not decide.
func scaleAmbiguous(b Band, v float64) bool {
	if v >= -1 && v <= 1 && b.Hi > 1 && b.Contains(v*100) {
		return true
	}
	return b.Hi <= 1 && v > 1 && v <= 100 && b.Contains(v/100)
}

func scaleWord(b Band) string {
	if b.Hi > 1 {
		return "percentage"
	}
	return "fraction"
}

// CheckLeaf is the code check of a leaf of either tree: [Check] for
// results leaves, [CheckSQL] for SQL leaves.
func CheckLeaf(t judgefmt.Tree, l *rubric.Node, a *Answer) CodeDecision {
	if t == judgefmt.TreeResults {
		return Check(l, a)
	}
	return CheckSQL(a)
}
