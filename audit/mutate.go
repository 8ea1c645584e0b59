package audit

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/clinsql/clinsql/datasets"
	"github.com/clinsql/clinsql/internal/pyfmt"
	"github.com/clinsql/clinsql/judge/codecheck"
	"github.com/clinsql/clinsql/judge/judgefmt"
	"github.com/clinsql/clinsql/rubric"
)

// Mutation names. Gold is the unchanged gold answer; the others change it
// in one known way.
const (
	Gold     = "gold"
	Scale100 = "scale100"  // every numeric value x100
	Scale001 = "scale0.01" // every numeric value x0.01
	Rename   = "rename"    // every column renamed col_1, col_2, ...
	Drop     = "drop"      // one column dropped (one answer per column)
	Null     = "null"      // every numeric column NULL
	Empty    = "empty"     // the query ran and returned no rows
	Failed   = "failed"    // the query failed
	// SQL mutations: the gold SQL changed, run on the embedded engine.
	SQLGender = "sql-gender" // the gender literal flipped ('F' <-> 'M')
	SQLAge    = "sql-age"    // an anchor_age bound shifted by 7 years
	SQLICD    = "sql-icd"    // an ICD prefix dropped
	SQLJoin   = "sql-join"   // a join key changed
)

// ResultMutations change the gold result; SQLMutations the gold SQL.
var (
	ResultMutations = []string{Scale100, Scale001, Rename, Drop, Null, Empty, Failed}
	SQLMutations    = []string{SQLGender, SQLAge, SQLICD, SQLJoin}
)

// ParseMutations reads a comma-separated list ("all", "results", "sql" or
// names).
func ParseMutations(s string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(m string) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, f := range strings.Split(s, ",") {
		switch f = strings.TrimSpace(f); f {
		case "":
		case "all":
			for _, m := range append(append([]string{}, ResultMutations...), SQLMutations...) {
				add(m)
			}
		case "results":
			for _, m := range ResultMutations {
				add(m)
			}
		case "sql":
			for _, m := range SQLMutations {
				add(m)
			}
		default:
			if !known(f) {
				return nil, fmt.Errorf("unknown mutation %q (want all, results, sql or a list of %s)", f,
					strings.Join(append(append([]string{}, ResultMutations...), SQLMutations...), ", "))
			}
			add(f)
		}
	}
	return out, nil
}

func known(m string) bool {
	for _, k := range append(append([]string{}, ResultMutations...), SQLMutations...) {
		if k == m {
			return true
		}
	}
	return false
}

func isSQLMutation(m string) bool {
	for _, s := range SQLMutations {
		if s == m {
			return true
		}
	}
	return false
}

// Expect is a verdict known by construction, with the reason it is known.
type Expect struct {
	Pass   bool
	Reason string
}

// Variant is one answer to a task whose verdicts are known by
// construction for some leaves: the gold answer, where every leaf must
// pass, or a mutated one, where the leaves in Expect must fail. Leaves
// absent from Expect cannot be told by construction and are not counted.
type Variant struct {
	Task     *datasets.Task
	Mutation string
	// Param says which instance of a mutation this is (the dropped
	// column, the changed literal).
	Param  string
	Answer *codecheck.Answer
	Expect map[judgefmt.LeafKey]Expect
	// Gold is the gold table (nil when unreadable), for reasons and lint.
	Gold *codecheck.Table
}

// Name identifies the variant: "drop:age_group", "scale100".
func (v *Variant) Name() string {
	if v.Param == "" {
		return v.Mutation
	}
	return v.Mutation + ":" + v.Param
}

func leafKey(t *datasets.Task, tree judgefmt.Tree, l *rubric.Node) judgefmt.LeafKey {
	return judgefmt.LeafKey{Task: t.Key.String(), Tree: tree, Leaf: l.ID}
}

// goldAnswer is the gold SQL with its recorded result, as a successful run.
func goldAnswer(t *datasets.Task) (*codecheck.Answer, *codecheck.Table, error) {
	tb, err := codecheck.ReadCSV(strings.NewReader(string(t.GoldResult)), codecheck.MaxTableRows)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: gold result %s: %w", t.Key, datasets.GoldResultFile(t.ID), err)
	}
	a := &codecheck.Answer{Key: t.Key, Dir: t.Key.String(), Question: t.Question, SQL: t.GoldSQL, Executed: true,
		RowCount: tb.TotalRows, ResultFile: datasets.GoldResultFile(t.ID), Table: tb}
	return a, tb, nil
}

// GoldVariant is the gold answer: every leaf of both trees must pass.
func GoldVariant(t *datasets.Task) (*Variant, error) {
	a, tb, err := goldAnswer(t)
	if err != nil {
		return nil, err
	}
	v := &Variant{Task: t, Mutation: Gold, Answer: a, Gold: tb, Expect: map[judgefmt.LeafKey]Expect{}}
	for _, tr := range trees(t) {
		for _, l := range tr.root.Leaves() {
			v.Expect[leafKey(t, tr.tree, l)] = Expect{Pass: true, Reason: "the gold answer satisfies its own rubric"}
		}
	}
	return v, nil
}

type treeOf struct {
	tree judgefmt.Tree
	root *rubric.Node
}

func trees(t *datasets.Task) []treeOf {
	return []treeOf{{judgefmt.TreeSQL, t.SQLRubric.Root}, {judgefmt.TreeResults, t.ResultsRubric.Root}}
}

// ResultVariants builds the result mutation m of a task's gold answer
// (several for Drop, none where the mutation changes nothing).
func ResultVariants(t *datasets.Task, m string) ([]*Variant, error) {
	a, gold, err := goldAnswer(t)
	if err != nil {
		return nil, err
	}
	mk := func(param string, tb *codecheck.Table) *Variant {
		b := *a
		b.Table = tb
		if tb != nil {
			b.RowCount = tb.TotalRows
		}
		return &Variant{Task: t, Mutation: m, Param: param, Answer: &b, Gold: gold, Expect: map[judgefmt.LeafKey]Expect{}}
	}
	var out []*Variant
	switch m {
	case Scale100, Scale001:
		f := 100.0
		if m == Scale001 {
			f = 0.01
		}
		cols := numericColumns(gold)
		if len(cols) == 0 {
			return nil, nil
		}
		v := mk("", scale(gold, cols, f))
		expectValues(v, fmt.Sprintf("every numeric value x%s", pyfmt.Float(f)))
		out = append(out, v)
	case Rename:
		tb := cloneTable(gold)
		for i := range tb.Columns {
			tb.Columns[i] = "col_" + strconv.Itoa(i+1)
		}
		v := mk("", tb)
		expectColumns(v, nil)
		out = append(out, v)
	case Drop:
		if len(gold.Columns) < 2 {
			return nil, nil
		}
		for i := range gold.Columns[:min(len(gold.Columns), maxDropped)] {
			v := mk(gold.Columns[i], dropColumn(gold, i))
			expectColumns(v, []string{gold.Columns[i]})
			expectValues(v, "column "+gold.Columns[i]+" dropped")
			out = append(out, v)
		}
	case Null:
		cols := numericColumns(gold)
		if len(cols) == 0 {
			return nil, nil
		}
		v := mk("", nullColumns(gold, cols))
		expectNulls(v, cols)
		expectValues(v, "every numeric column NULL")
		out = append(out, v)
	case Empty:
		tb := &codecheck.Table{Columns: append([]string(nil), gold.Columns...)}
		v := mk("", tb)
		v.Answer.RowCount = 0
		expectAllResults(v, "the query returned no rows")
		out = append(out, v)
	case Failed:
		v := mk("", nil)
		v.Answer.Executed, v.Answer.Error, v.Answer.RowCount, v.Answer.ResultFile = false, "audit: the query failed (mutation)", 0, ""
		expectAllResults(v, "the query failed")
		out = append(out, v)
	default:
		return nil, fmt.Errorf("%q is not a result mutation", m)
	}
	return out, nil
}

// maxDropped bounds the drop variants per task: wide results would
// multiply answers without testing new kinds of leaves.
const maxDropped = 12

func expectAllResults(v *Variant, why string) {
	for _, l := range v.Task.ResultsRubric.Root.Leaves() {
		v.Expect[leafKey(v.Task, judgefmt.TreeResults, l)] = Expect{Reason: "every results leaf fails without a result: " + why}
	}
}

// expectValues: a band leaf must fail when no value of the mutated result
// could satisfy it, whatever column or rows a judge reads (see
// candidateValues).
func expectValues(v *Variant, why string) {
	tb := v.Answer.Table
	for _, l := range v.Task.ResultsRubric.Root.Leaves() {
		if codecheck.KindOf(l) != codecheck.KindBand {
			continue
		}
		bands := codecheck.ParseBands(l.Requirements)
		if len(bands) == 0 {
			continue
		}
		// Every band the leaf states counts here, cohort ranges too: a
		// value in any of them leaves the verdict open.
		if _, ok := anyInBand(tb, bands, rateLeaf(l)); ok {
			continue
		}
		v.Expect[leafKey(v.Task, judgefmt.TreeResults, l)] = Expect{Reason: why + ": no value, column total, row or column count of the result, " +
			"read as it is (or, for a rate, as a fraction or a percentage), lies in " + bandList(bands)}
	}
}

func bandList(bands []codecheck.Band) string {
	var s []string
	for _, b := range bands {
		s = append(s, b.String())
	}
	return strings.Join(s, "; ")
}

// anyInBand reports a candidate value of the table that lies in one of
// the bands. The candidates are every number in it, every numeric
// column's total, the row count and the column count (a band may be meant
// for a total or for a count of categories). On a rate (the leaf or its
// parents speak of a rate, percentage, proportion or fraction) a value in
// [0, 1] may also be read as a fraction against a band in percent (x100),
// and a value in (1, 100] as a percentage against a band of fractions
// (x0.01): a judge may read it either way, so a failure is certain only
// when no reading lies in a band.
func anyInBand(tb *codecheck.Table, bands []codecheck.Band, rate bool) (float64, bool) {
	return inBand(tb, nil, bands, rate)
}

// inBand is anyInBand over the values of the given columns (and their
// totals) only; nil cols means every column, with the row and column
// counts.
func inBand(tb *codecheck.Table, cols []int, bands []codecheck.Band, rate bool) (float64, bool) {
	if tb == nil {
		return 0, false
	}
	var cands []float64
	if len(tb.Rows) > 0 && cols == nil {
		cands = append(cands, float64(tb.TotalRows), float64(len(tb.Columns)))
	}
	if cols == nil {
		for i := range tb.Columns {
			cols = append(cols, i)
		}
	}
	for _, i := range cols {
		sum, n := 0.0, 0
		for _, r := range tb.Rows {
			if i < len(r) && r[i].IsNum {
				cands = append(cands, r[i].Num)
				sum += r[i].Num
				n++
			}
		}
		if n > 1 {
			cands = append(cands, sum)
		}
	}
	for _, c := range cands {
		for _, b := range bands {
			readings := []float64{c}
			if rate && c >= 0 && c <= 1 && b.Hi > 1 {
				readings = append(readings, c*100)
			}
			if rate && c > 1 && c <= 100 && b.Hi <= 1 {
				readings = append(readings, c/100)
			}
			for _, x := range readings {
				if b.Contains(x) || b.Contains(math.Round(x*1e9)/1e9) {
					return c, true
				}
			}
		}
	}
	return 0, false
}

var rateWords = regexp.MustCompile(`(?i)rate|percent|pct|%|proportion|fraction|ratio|share|prevalence|incidence|mortality`)

// rateLeaf reports a leaf whose text or ancestors' speak of a rate.
func rateLeaf(l *rubric.Node) bool {
	for _, n := range append([]*rubric.Node{l}, l.Ancestors()...) {
		if rateWords.MatchString(n.Requirements) || rateWords.MatchString(n.ID) {
			return true
		}
	}
	return false
}

// columnWords are words of a column leaf that say nothing of the column.
var columnWords = map[string]bool{"column": true, "col": true, "name": true, "exist": true, "present": true, "required": true,
	"field": true, "output": true, "result": true, "value": true, "e": true, "g": true, "eg": true, "csv": true, "contain": true, "contains": true}

func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range codecheck.Tokens(s) {
		if !columnWords[w] && !isNumber(w) {
			out[w] = true
		}
	}
	return out
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// expectColumns: a column leaf must fail when the quantity it asks for is
// gone: after Rename (dropped == nil) no column has a name but col_N;
// after Drop the leaf names the dropped column among its examples and no
// remaining column shares a word with it. Either way no text cell of the
// result may share a word with the leaf, or a judge could find the
// quantity as a row label of a long-format result.
func expectColumns(v *Variant, dropped []string) {
	tb := v.Answer.Table
	cellWords := map[string]bool{}
	for _, r := range tb.Rows {
		for _, c := range r {
			if !c.Null && !c.IsNum {
				for w := range contentWords(c.Raw) {
					cellWords[w] = true
				}
			}
		}
	}
	colWords := map[string]bool{}
	for _, c := range tb.Columns {
		if !codecheck.GenericName(c) {
			for w := range contentWords(c) {
				colWords[w] = true
			}
		}
	}
	for _, l := range v.Task.ResultsRubric.Root.Leaves() {
		if codecheck.KindOf(l) != codecheck.KindColumn {
			continue
		}
		ids := codecheck.Identifiers(l.Requirements)
		generic := false
		for _, id := range ids {
			generic = generic || codecheck.GenericName(id)
		}
		if generic {
			continue
		}
		words := contentWords(l.Requirements)
		if len(words) == 0 || overlaps(words, cellWords) {
			continue
		}
		why := "every column renamed col_N"
		if dropped != nil {
			if !namesAny(ids, dropped) || overlaps(colWords, contentWords(dropped[0])) || overlaps(colWords, words) {
				continue
			}
			why = "column " + dropped[0] + ", the leaf's example, dropped; no remaining column shares a word with the leaf"
		}
		v.Expect[leafKey(v.Task, judgefmt.TreeResults, l)] = Expect{Reason: why + " and no text value of the result does"}
	}
}

func overlaps(a, b map[string]bool) bool {
	for w := range a {
		if b[w] {
			return true
		}
	}
	return false
}

func namesAny(ids, cols []string) bool {
	for _, id := range ids {
		for _, c := range cols {
			if strings.EqualFold(id, c) {
				return true
			}
		}
	}
	return false
}

// nullExcuse marks a NULL leaf that allows some NULLs.
var nullExcuse = regexp.MustCompile(`(?i)\bexpected\b|\bacceptable\b|\ballowed\b|\bpermitted\b|\bmay\b|\bcan be\b|\bapplicable\b|\bunless\b|\bexcept\b`)

// expectNulls: after Null a no-NULL leaf must fail unless it allows some
// NULLs, when every column is NULL or every column it names is.
func expectNulls(v *Variant, nulled []int) {
	tb := v.Answer.Table
	isNulled := map[string]bool{}
	for _, i := range nulled {
		isNulled[strings.ToLower(tb.Columns[i])] = true
	}
	all := len(nulled) == len(tb.Columns)
	for _, l := range v.Task.ResultsRubric.Root.Leaves() {
		if codecheck.KindOf(l) != codecheck.KindNoNull || nullExcuse.MatchString(l.Requirements) {
			continue
		}
		named, ok := 0, true
		for _, id := range codecheck.Identifiers(l.Requirements) {
			if tb.Column(id) >= 0 {
				named++
				ok = ok && isNulled[strings.ToLower(id)]
			}
		}
		if !all && (named == 0 || !ok) {
			continue
		}
		v.Expect[leafKey(v.Task, judgefmt.TreeResults, l)] = Expect{Reason: "every value of the columns the leaf covers is NULL"}
	}
}

// numericColumns are the columns whose every value is a number (at least
// one), identifiers excepted: those are names, not measurements.
func numericColumns(tb *codecheck.Table) []int {
	var out []int
	for i, c := range tb.Columns {
		if idColumn.MatchString(c) {
			continue
		}
		num := 0
		ok := true
		for _, r := range tb.Rows {
			switch {
			case r[i].IsNum:
				num++
			case !r[i].Null:
				ok = false
			}
		}
		if ok && num > 0 {
			out = append(out, i)
		}
	}
	return out
}

var idColumn = regexp.MustCompile(`(?i)(?:^|_)(?:item|subject|hadm|stay|icustay|patient|caregiver|transfer|specimen|order)?_?ids?$`)

func cloneTable(t *codecheck.Table) *codecheck.Table {
	c := &codecheck.Table{Columns: append([]string(nil), t.Columns...), TotalRows: t.TotalRows, Truncated: t.Truncated}
	c.Rows = make([][]codecheck.Cell, len(t.Rows))
	for i, r := range t.Rows {
		c.Rows[i] = append([]codecheck.Cell(nil), r...)
	}
	return c
}

func scale(t *codecheck.Table, cols []int, f float64) *codecheck.Table {
	c := cloneTable(t)
	for _, r := range c.Rows {
		for _, i := range cols {
			if r[i].IsNum {
				r[i] = codecheck.ParseCell(pyfmt.Float(r[i].Num * f))
			}
		}
	}
	return c
}

func nullColumns(t *codecheck.Table, cols []int) *codecheck.Table {
	c := cloneTable(t)
	for _, r := range c.Rows {
		for _, i := range cols {
			r[i] = codecheck.Cell{Null: true}
		}
	}
	return c
}

func dropColumn(t *codecheck.Table, col int) *codecheck.Table {
	c := &codecheck.Table{TotalRows: t.TotalRows, Truncated: t.Truncated}
	c.Columns = append(append([]string(nil), t.Columns[:col]...), t.Columns[col+1:]...)
	for _, r := range t.Rows {
		c.Rows = append(c.Rows, append(append([]codecheck.Cell(nil), r[:col]...), r[col+1:]...))
	}
	return c
}
