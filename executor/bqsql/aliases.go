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
	start := sel + 1
	for at(items, start).is("DISTINCT") || at(items, start).is("ALL") {
		start++
	}
	if at(items, start).is("AS") {
		return // SELECT AS STRUCT / VALUE
	}
	end := start
	for end < len(items) && !endsSelectList(items, end) {
		end++
	}
	aliases := map[string]outputAlias{}
	// A star stands for many columns, so no ordinal can be counted.
	star := false
	for k, el := range splitTop(items[start:end]) {
		for _, it := range el {
			star = star || it.isPunct("*")
		}
		n := len(el)
		var name string
		switch {
		case n >= 3 && el[n-2].is("AS") && isName(el[n-1]):
			name = strings.ToLower(e.identValue(el[n-1]))
			el = el[:n-2]
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
		aliases[name] = outputAlias{ordinal: k + 1, expr: expr}
	}
	if len(aliases) == 0 {
		return
	}
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
	ordinal int
	expr    []*item
}

// substituteAliases replaces, in an ORDER BY expression, the bare names
// that are SELECT aliases by the aliased expressions in parentheses. It
// does not enter subqueries, nor touch qualified names or function names.
func substituteAliases(el []*item, lookup func(*item) (outputAlias, bool)) {
	for i, it := range el {
		if it.group {
			if !isSubquery(it) {
				substituteAliases(it.kids, lookup)
			}
			continue
		}
		if at(el, i-1).isPunct(".") || at(el, i+1).isPunct(".") || at(el, i+1).isGroup("(") {
			continue
		}
		if o, ok := lookup(it); ok {
			el[i] = &item{group: true, tok: Token{Kind: Punct, Text: "(", Pos: it.tok.Pos}, close: Token{Kind: Punct, Text: ")"},
				kids: o.expr, sp: it.sp, nl: it.nl}
		}
	}
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
