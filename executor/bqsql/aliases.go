package bqsql

import (
	"strconv"
	"strings"
)

// resolveOutputAliases gives GROUP BY and ORDER BY names BigQuery's
// meaning, in every query block: "If a query contains aliases in the SELECT
// clause, those aliases override names in the corresponding FROM clause"
// (GoogleSQL query syntax, GROUP BY), and ORDER BY names resolve to the
// SELECT list first. DuckDB looks in the FROM clause first, so where a name
// is both an alias and a column of a joined table it binds the column, or
// reports it ambiguous ("discharge_outcome" of s and p). A GROUP BY or
// ORDER BY item that is exactly an alias (explicit, or the implicit col of
// t.col) becomes the select item's ordinal; an alias used inside an ORDER BY expression (CASE regimen
// WHEN …) becomes the aliased expression, in parentheses.
func (e *emitter) resolveOutputAliases(items []*item) {
	for _, it := range items {
		if it.group {
			e.resolveOutputAliases(it.kids)
		}
	}
	sel := -1
	for k, it := range items {
		if it.is("SELECT") {
			if sel >= 0 {
				return // several SELECTs at one level: a set operation
			}
			sel = k
		}
		if it.is("UNION") || it.is("INTERSECT") {
			return
		}
	}
	if sel < 0 {
		return
	}
	start, end := selectList(items, sel)
	if at(items, start).is("AS") {
		return // SELECT AS STRUCT / VALUE
	}
	havingSubqueryAliases(items, start, end)
	aliases := map[string]outputAlias{}
	// A star stands for many columns, so no ordinal can be counted.
	star := false
	for k, el := range splitTop(items[start:end]) {
		for _, it := range el {
			star = star || it.isPunct("*")
		}
		n := len(el)
		var name string
		explicit := false
		switch {
		case n >= 3 && el[n-2].is("AS") && isName(el[n-1]):
			name = strings.ToLower(e.identValue(el[n-1]))
			el = el[:n-2]
			explicit = true
		case n >= 3 && el[n-2].isPunct(".") && isName(el[n-1]):
			// t.col: its implicit alias is col.
			name = strings.ToLower(e.identValue(el[n-1]))
		default:
			continue
		}
		if _, dup := aliases[name]; dup {
			aliases[name] = outputAlias{} // a duplicate alias: BigQuery calls it ambiguous
			continue
		}
		expr := el
		if len(expr) == 1 && isName(expr[0]) && strings.EqualFold(e.identValue(expr[0]), name) {
			continue // x AS x: the same name either way
		}
		aliases[name] = outputAlias{ordinal: k + 1, expr: expr, explicit: explicit}
	}
	if len(aliases) == 0 {
		return
	}
	e.checkWhereAliases(items, end, aliases)
	lookup := func(it *item) (outputAlias, bool) {
		if !isName(it) {
			return outputAlias{}, false
		}
		o, ok := aliases[strings.ToLower(e.identValue(it))]
		return o, ok && o.ordinal > 0
	}
	ordinal := func(it *item, o outputAlias) *item {
		return &item{tok: Token{Kind: Number, Text: strconv.Itoa(o.ordinal), Pos: it.tok.Pos}, sp: it.sp, nl: it.nl}
	}
	for k := end; k < len(items); k++ {
		clause := ""
		switch {
		case items[k].is("GROUP") && at(items, k+1).is("BY"):
			clause = "GROUP"
		case items[k].is("ORDER") && at(items, k+1).is("BY"):
			clause = "ORDER"
		default:
			continue
		}
		from := k + 2
		to := from
		for to < len(items) && !endsClause(items[to]) {
			to++
		}
		elemStart := from
		for j := from; j <= to; j++ {
			if j < to && !items[j].isPunct(",") {
				continue
			}
			el := items[elemStart:j]
			elemStart = j + 1
			if len(el) == 0 {
				continue
			}
			// The item itself is the alias (ORDER BY may add ASC/DESC and
			// NULLS FIRST/LAST).
			if o, ok := lookup(el[0]); ok && (len(el) == 1 || (clause == "ORDER" && isOrderModifier(el[1]))) {
				// DuckDB itself binds a bare ORDER BY alias to the select
				// item; an ordinal says so in every case.
				if !star {
					items[j-len(el)] = ordinal(el[0], o)
				}
				continue
			}
			if clause == "ORDER" {
				substituteAliases(el, lookup)
			}
		}
		k = to - 1
	}
}

// outputAlias is a SELECT list item with an explicit alias: its 1-based
// position and its expression.
type outputAlias struct {
	ordinal  int
	expr     []*item
	explicit bool // written with AS, not the implicit col of t.col
}

// substituteAliases replaces, in an ORDER BY expression, the bare names
// that are SELECT aliases by the aliased expressions in parentheses. It
// does not enter subqueries, nor touch qualified names or function names.
func substituteAliases(el []*item, lookup func(*item) (outputAlias, bool)) {
	bareNames(el, func(seq []*item, i int) bool {
		if o, ok := lookup(seq[i]); ok {
			it := seq[i]
			seq[i] = &item{group: true, tok: Token{Kind: Punct, Text: "(", Pos: it.tok.Pos}, close: Token{Kind: Punct, Text: ")"},
				kids: o.expr, sp: it.sp, nl: it.nl}
		}
		return false
	})
}

// bareNames calls f(seq, i) for every bare name seq[i] in items and in the
// brackets within them, except subqueries: not a qualifier or a qualified
// name (t.x), not a function name. It stops, and returns true, when f does.
func bareNames(items []*item, f func(seq []*item, i int) bool) bool {
	for i, it := range items {
		if it.group {
			if !isSubquery(it) && bareNames(it.kids, f) {
				return true
			}
			continue
		}
		if !isName(it) || at(items, i-1).isPunct(".") || at(items, i+1).isPunct(".") || at(items, i+1).isGroup("(") {
			continue
		}
		if f(items, i) {
			return true
		}
	}
	return false
}

// endsSelectList reports whether items[i] ends a SELECT list.
func endsSelectList(items []*item, i int) bool {
	switch items[i].upper() {
	case "FROM", "WHERE", "GROUP", "HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT", "UNION", "INTERSECT":
		return !items[i].group
	case "EXCEPT":
		return !at(items, i-1).isPunct("*") && !at(items, i-1).isPunct(".")
	}
	return items[i].isPunct(";")
}

// endsClause reports whether it starts the clause after GROUP BY or ORDER BY.
func endsClause(it *item) bool {
	if it.group {
		return false
	}
	switch it.upper() {
	case "HAVING", "QUALIFY", "WINDOW", "ORDER", "LIMIT", "OFFSET", "UNION", "INTERSECT", "EXCEPT":
		return true
	}
	return it.isPunct(";")
}

func isOrderModifier(it *item) bool {
	return it.is("ASC") || it.is("DESC") || it.is("NULLS")
}

// wrapSetOperationOrder gives ORDER BY after a set operation BigQuery's
// meaning: it sorts the set operation's output, by expressions over its
// column names (ORDER BY CASE period WHEN … END). DuckDB accepts only
// output columns there and refuses expressions ("Could not ORDER BY column
// …: add the expression to every SELECT"), so the set operation is moved
// into a FROM clause, where its columns are names like any other:
//
//	[WITH …] a UNION ALL b ORDER BY f(x) LIMIT n
//	[WITH …] SELECT * FROM (a UNION ALL b) AS bq_setop ORDER BY f(x) LIMIT n
//
// Plain names and ordinals are left alone: DuckDB sorts by them as is.
func wrapSetOperationOrder(items []*item) []*item {
	for _, it := range items {
		if it.group {
			it.kids = wrapSetOperationOrder(it.kids)
		}
	}
	body := 0
	if at(items, 0).is("WITH") {
		body = 1
		if at(items, body).is("RECURSIVE") {
			body++
		}
		for isName(at(items, body)) && at(items, body+1).is("AS") && at(items, body+2).isGroup("(") {
			body += 3
			if !at(items, body).isPunct(",") {
				break
			}
			body++
		}
	}
	setop, order := -1, -1
	for k := body; k < len(items); k++ {
		it := items[k]
		switch {
		case it.is("UNION") || it.is("INTERSECT") || (it.is("EXCEPT") && !at(items, k-1).isPunct("*") && !at(items, k-1).isPunct(".")):
			setop = k
		case it.is("ORDER") && at(items, k+1).is("BY") && setop >= 0:
			order = k
		}
	}
	if order < 0 {
		return items
	}
	end := order + 2
	for end < len(items) && !items[end].is("LIMIT") && !items[end].is("OFFSET") && !items[end].isPunct(";") {
		end++
	}
	plain := true
	for _, el := range splitTop(items[order+2 : end]) {
		n := len(el)
		for n > 1 && (isOrderModifier(el[n-1]) || el[n-1].is("FIRST") || el[n-1].is("LAST")) {
			n--
		}
		if n != 1 || !(isName(el[0]) || el[0].tok.Kind == Number) {
			plain = false
		}
	}
	if plain {
		return items
	}
	pos := items[order].tok.Pos
	word := func(text string, kind Kind) *item {
		return &item{tok: Token{Kind: kind, Text: text, Pos: pos}, sp: true}
	}
	inner := &item{group: true, tok: Token{Kind: Punct, Text: "(", Pos: pos}, close: Token{Kind: Punct, Text: ")"},
		kids: append([]*item(nil), items[body:order]...), sp: true}
	out := append([]*item(nil), items[:body]...)
	out = append(out, word("SELECT", Ident), word("*", Punct), word("FROM", Ident), inner, word("AS", Ident), word("bq_setop", Ident))
	return append(out, items[order:]...)
}

// checkWhereAliases rejects, as BigQuery does ("Unrecognized name"), a
// SELECT alias used in the WHERE clause of its own query block, which
// DuckDB would accept. It decides only when it is certain: every FROM
// source of the block is a MIMIC table, none of the query's MIMIC tables
// has a column of that name, and no other SELECT list in the query defines
// it (so it cannot be an outer query's column either).
func (e *emitter) checkWhereAliases(items []*item, selectEnd int, aliases map[string]outputAlias) {
	if e.cat == nil || !at(items, selectEnd).is("FROM") {
		return
	}
	where := -1
	for k := selectEnd + 1; k < len(items); k++ {
		it := items[k]
		if it.is("WHERE") {
			where = k
			break
		}
		if endsClause(it) || it.is("GROUP") {
			return
		}
		// Every source follows FROM, JOIN or a comma: a MIMIC table path.
		if prev := items[k-1]; prev.is("FROM") || prev.is("JOIN") || (prev.isPunct(",") && k > selectEnd+1) {
			parts, _ := readTablePath(items, k)
			if mimicTable(parts) == "" {
				return
			}
		}
	}
	if where < 0 {
		return
	}
	to := where + 1
	for to < len(items) && !endsClause(items[to]) && !items[to].is("GROUP") {
		to++
	}
	bareNames(items[where+1:to], func(seq []*item, i int) bool {
		it := seq[i]
		name := strings.ToLower(e.identValue(it))
		if o, ok := aliases[name]; !ok || !o.explicit || e.outputNames[name] != 1 || e.anyMimicColumn(name) {
			return false
		}
		e.invalid(it, "Unrecognized name: %s", it.tok.Text)
		return true
	})
}

// anyMimicColumn reports whether a MIMIC table the query reads has the
// column.
func (e *emitter) anyMimicColumn(name string) bool {
	for _, t := range e.mimicTabls {
		schema, table, _ := strings.Cut(t, ".")
		if e.cat.ColumnType(schema, table, name) != "" {
			return true
		}
	}
	return false
}

// countOutputNames counts, over every SELECT list of the query, the names
// given with AS or as an implicit alias.
func (e *emitter) countOutputNames(items []*item) {
	eachSelectItem(items, func(el []*item) {
		if n := len(el); n >= 3 && el[n-2].is("AS") && isName(el[n-1]) {
			e.outputNames[strings.ToLower(e.identValue(el[n-1]))]++
		} else if name, _, ok := implicitAlias(el); ok {
			e.outputNames[strings.ToLower(e.identValue(name))]++
		}
	})
}

// indexPunct returns the index of the first punctuation item p, or -2 (so
// that the item after it is out of range too).
func indexPunct(items []*item, p string) int {
	for i, it := range items {
		if it.isPunct(p) {
			return i
		}
	}
	return -2
}

// selectAsStruct rewrites, in subqueries, SELECT AS STRUCT a, f(b) AS c into
// SELECT STRUCT(a AS a, f(b) AS c): one STRUCT per row with the select
// list's names, which the STRUCT constructor's translation renders
// (anonymous expressions become anonymous fields, as in BigQuery). It is
// left alone (and reported unsupported) where another clause of the block
// names one of the list's aliases, whose meaning the rewrite would change,
// where the list has a star, and at the top level, where BigQuery returns a
// value table.
func selectAsStruct(items []*item, top bool) []*item {
	for _, it := range items {
		if it.group {
			it.kids = selectAsStruct(it.kids, false)
		}
	}
	if top {
		return items
	}
	sel := indexWord(items, "SELECT")
	if sel < 0 {
		return items
	}
	as := sel + 1
	for at(items, as).is("DISTINCT") || at(items, as).is("ALL") {
		as++
	}
	if !at(items, as).is("AS") || !at(items, as+1).is("STRUCT") || at(items, as+2).isPunct("<") {
		return items
	}
	start := as + 2
	end := start
	for end < len(items) && !endsSelectList(items, end) {
		end++
	}
	named := map[string]bool{}
	var kids []*item
	for k, el := range splitTop(items[start:end]) {
		n := len(el)
		if n == 0 {
			return items
		}
		if el[0].isPunct("*") || (n >= 2 && el[n-1].isPunct("*") && el[n-2].isPunct(".")) ||
			at(el, indexPunct(el, "*")+1).is("EXCEPT") || at(el, indexPunct(el, "*")+1).is("REPLACE") {
			return items // a star's fields are not known here
		}
		if k > 0 {
			kids = append(kids, &item{tok: Token{Kind: Punct, Text: ",", Pos: el[0].tok.Pos}})
		}
		kids = append(kids, el...)
		name := func(t Token) []*item {
			return []*item{{tok: Token{Kind: Ident, Text: "AS", Pos: t.Pos}, sp: true}, {tok: t, sp: true}}
		}
		switch {
		case n >= 3 && el[n-2].is("AS") && isName(el[n-1]):
			named[strings.ToLower(strings.Trim(el[n-1].tok.Text, "`"))] = true
		case n == 1 && isName(el[0]):
			kids = append(kids, name(el[0].tok)...)
		case n >= 2 && isName(el[n-1]) && endsOperand(el[n-2]) && !el[n-2].is("AS"):
			// An implicit alias (1 a): STRUCT wants AS.
			named[strings.ToLower(strings.Trim(el[n-1].tok.Text, "`"))] = true
			kids = append(kids[:len(kids)-1], name(el[n-1].tok)...)
		case n >= 3 && el[n-2].isPunct(".") && isName(el[n-1]):
			kids = append(kids, name(el[n-1].tok)...)
		}
	}
	// Another clause naming an alias of the list: leave it (unsupported).
	if bareNames(items[end:], func(seq []*item, i int) bool {
		return named[strings.ToLower(strings.Trim(seq[i].tok.Text, "`"))]
	}) {
		return items
	}
	pos := items[as].tok.Pos
	out := append([]*item(nil), items[:as]...)
	out = append(out,
		&item{tok: Token{Kind: Ident, Text: "STRUCT", Pos: pos}, sp: true},
		&item{group: true, tok: Token{Kind: Punct, Text: "(", Pos: pos}, close: Token{Kind: Punct, Text: ")"}, kids: kids})
	return append(out, items[end:]...)
}
