package bqsql

import (
	"strconv"
	"strings"
)

// pivots rewrites `from_item PIVOT (agg [AS a], … FOR col IN (v [AS n], …))`
// into DuckDB's PIVOT of the same shape wrapped in a subquery that renames
// its columns the way BigQuery names them.
//
// The two PIVOTs mean the same thing: the input's columns that no
// aggregate and not the FOR column reference are the grouping columns,
// each aggregate is computed over the rows whose FOR column IS NOT
// DISTINCT FROM the value (a NULL value collects the NULL rows), and an
// input with no grouping column gives one row even when empty. The names
// differ: BigQuery calls a column `a_v` (aggregate alias, value name) or
// just `v` for a single unaliased aggregate, where an unaliased value
// 100 is `100` (`_100` alone), 'Q1' is `Q1` and NULL is `NULL`; DuckDB
// calls it `v_a`. So every aggregate and value gets an internal alias and
// the wrapper selects `__pv<j>___pa<i>` under BigQuery's name.
//
// Forms DuckDB's PIVOT cannot take (a FOR expression other than a column,
// a value without alias that is not an integer, string, boolean or NULL
// literal) are refused as unsupported; DuckDB itself refuses qualified
// columns and subqueries inside the aggregates and a value listed twice,
// so those fail rather than answer differently.
func (e *emitter) pivots(items []*item) []*item {
	for i := 0; i < len(items); i++ {
		if !items[i].is("PIVOT") || !at(items, i+1).isGroup("(") {
			continue
		}
		start := i
		for start > 0 && !fromItemBoundary(items[start-1]) {
			start--
		}
		if start == i {
			continue // no input: leave it to the syntax checks
		}
		text, ok := e.pivotText(items[start:i], items[i+1])
		if !ok {
			return items
		}
		node := &item{tok: items[start].tok, nl: items[start].nl, sp: items[start].sp, isRaw: true, raw: text}
		rest := append([]*item{node}, items[i+2:]...)
		items = append(items[:start:start], rest...)
		i = start
	}
	return items
}

// fromItemBoundary reports whether it ends the clause before a from item
// (so the from item starts after it).
func fromItemBoundary(it *item) bool {
	return it.isPunct(",") || it.is("FROM") || it.is("JOIN")
}

func (e *emitter) pivotText(input []*item, g *item) (string, bool) {
	kids := g.kids
	forAt := indexWord(kids, "FOR")
	if forAt < 0 {
		e.invalid(g, `Syntax error: Expected keyword FOR but got ")"`)
		return "", false
	}
	inAt := -1
	for k := forAt + 1; k < len(kids); k++ {
		if kids[k].is("IN") {
			inAt = k
			break
		}
	}
	if inAt < 0 || !at(kids, inAt+1).isGroup("(") || inAt+2 != len(kids) {
		e.invalid(g, "Syntax error: Expected keyword IN after the PIVOT FOR expression")
		return "", false
	}
	col := kids[forAt+1 : inAt]
	for len(col) == 1 && col[0].isGroup("(") && !isSubquery(col[0]) {
		col = col[0].kids
	}
	if len(col) != 1 || (col[0].tok.Kind != Ident && col[0].tok.Kind != QuotedIdent) || col[0].synthetic() ||
		col[0].group || bqReserved[col[0].upper()] {
		e.unsupported(kids[forAt], "PIVOT FOR an expression other than a column name is not supported")
		return "", false
	}
	aggs := splitTop(kids[:forAt])
	aggAlias := make([]string, len(aggs))
	for k, a := range aggs {
		aggs[k], aggAlias[k] = splitAlias(e, a)
		if len(aggs[k]) == 0 {
			e.invalid(g, "Syntax error: Unexpected keyword FOR")
			return "", false
		}
		if len(aggs) > 1 && aggAlias[k] == "" {
			e.unsupported(aggs[k][0], "PIVOT with several aggregates not all named with AS is not supported")
			return "", false
		}
	}
	vals := splitTop(kids[inAt+1].kids)
	if len(vals) == 0 {
		e.invalid(kids[inAt+1], `Syntax error: Unexpected ")"`)
		return "", false
	}
	valName := make([]string, len(vals))
	for k, v := range vals {
		vals[k], valName[k] = splitAlias(e, v)
		if len(vals[k]) == 0 {
			e.invalid(kids[inAt+1], "Syntax error: Unexpected keyword AS")
			return "", false
		}
		if valName[k] == "" {
			name, ok := pivotValueName(e, vals[k])
			if !ok {
				e.unsupported(vals[k][0], "PIVOT value without an alias other than an integer, string, boolean or NULL literal is not supported")
				return "", false
			}
			valName[k] = name
		}
	}
	// DuckDB refuses a value listed twice (BigQuery allows it, e.g. NULL
	// and NULL AS n): each distinct value is pivoted once and its columns
	// selected under every name.
	var b strings.Builder
	var pivoted, named, cells []string
	b.WriteString(" PIVOT (")
	posts := make([]string, len(aggs))
	for k, a := range aggs {
		if k > 0 {
			b.WriteString(", ")
		}
		if list, post, ok := e.listPivotAgg(a); ok {
			posts[k] = post
			b.WriteString(list + " AS " + quoteIdent("__pa"+strconv.Itoa(k)))
			continue
		}
		e.inPivotAgg = true
		text := e.text(a)
		e.inPivotAgg = false
		b.WriteString(text + " AS " + quoteIdent("__pa"+strconv.Itoa(k)))
	}
	b.WriteString(" FOR " + quoteIdent(e.identValue(col[0])) + " IN (")
	slot := map[string]int{} // translated value -> its DuckDB alias number
	for j, v := range vals {
		vt := e.text(v)
		n, seen := slot[vt]
		if !seen {
			n = len(slot)
			slot[vt] = n
			if n > 0 {
				b.WriteString(", ")
			}
			b.WriteString(vt + " AS " + quoteIdent("__pv"+strconv.Itoa(n)))
		}
		for k := range aggs {
			duck := quoteIdent("__pv" + strconv.Itoa(n) + "___pa" + strconv.Itoa(k))
			if !seen {
				pivoted = append(pivoted, duck)
				if posts[k] != "" {
					// Once per cell, however many names it has: a
					// volatile aggregate gives them one value.
					cells = append(cells, listPivotCell(posts[k], duck)+" AS "+duck)
				}
			}
			name := valName[j]
			switch {
			case aggAlias[k] != "":
				name = aggAlias[k] + "_" + name
			case name != "" && name[0] >= '0' && name[0] <= '9':
				name = "_" + name // a bare number is no column name
			}
			named = append(named, duck+" AS "+quoteIdent(name))
		}
	}
	b.WriteString("))")
	if e.err != nil {
		return "", false
	}
	// The grouping columns come first, then the pivot columns in value
	// order, aggregate order within a value, as in BigQuery.
	source := e.text(input) + b.String()
	if len(cells) > 0 {
		source = "(SELECT * REPLACE (" + strings.Join(cells, ", ") + ") FROM " + source + ")"
	}
	return "(SELECT * EXCLUDE (" + strings.Join(pivoted, ", ") + "), " + strings.Join(named, ", ") +
		" FROM " + source + ")", true
}

// splitAlias splits `expr [AS] name` into the expression and the name ("" if
// none).
func splitAlias(e *emitter, el []*item) ([]*item, string) {
	n := len(el)
	if n >= 2 && (el[n-1].tok.Kind == QuotedIdent || (el[n-1].tok.Kind == Ident && !bqReserved[el[n-1].upper()])) &&
		!el[n-1].synthetic() && !el[n-1].group {
		if el[n-2].is("AS") {
			return el[:n-2], e.identValue(el[n-1])
		}
		if p := el[n-2]; p.group || p.tok.Kind == Number || p.tok.Kind == String || p.is("NULL") || p.is("TRUE") || p.is("FALSE") {
			return el[:n-1], e.identValue(el[n-1])
		}
	}
	return el, ""
}

// pivotValueName is the column name BigQuery gives an unaliased PIVOT value.
func pivotValueName(e *emitter, v []*item) (string, bool) {
	if len(v) != 1 || v[0].synthetic() || v[0].group {
		return "", false
	}
	it := v[0]
	switch {
	case it.tok.Kind == Number && !it.tok.IsFloat():
		if _, err := strconv.ParseInt(it.tok.Text, 0, 64); err != nil || strings.HasPrefix(strings.ToLower(it.tok.Text), "0x") {
			return "", false
		}
		return it.tok.Text, true
	case it.tok.Kind == String:
		s, err := it.tok.Value()
		return s, err == nil && s != ""
	case it.is("NULL"):
		return "NULL", true
	case it.is("TRUE"), it.is("FALSE"):
		return strings.ToLower(it.tok.Text), true
	}
	return "", false
}

// volatileIn reports whether items call RAND or GENERATE_UUID.
func volatileIn(items []*item) bool {
	for _, it := range items {
		if it.is("RAND") || it.is("GENERATE_UUID") || (it.group && volatileIn(it.kids)) {
			return true
		}
	}
	return false
}
