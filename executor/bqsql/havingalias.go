package bqsql

import "strings"

// havingSubqueryAliases lets a subquery in HAVING use a SELECT alias of an
// aggregate, as BigQuery does (HAVING EXISTS (SELECT … FROM UNNEST(aa) …)
// where aa is ARRAY_AGG(…) AS aa); DuckDB binds such an alias in HAVING
// itself but refuses it inside a correlated subquery ("Having clause cannot
// reference alias"). The alias becomes its aggregate expression, which
// DuckDB evaluates in the grouped query, as BigQuery does. Only where the
// name cannot mean anything else: the subquery reads nothing but UNNEST
// sources whose aliases differ from it (a table there could have a column
// of that name), and the alias stands for an aggregate (a FROM column of
// the same name, ungrouped, could not be read in HAVING).
func havingSubqueryAliases(items []*item, start, end int) {
	h := -1
	for k := end; k < len(items); k++ {
		if items[k].is("HAVING") {
			h = k
			break
		}
	}
	if h < 0 {
		return
	}
	// The aggregate items of the SELECT list, with AS or without.
	agg := map[string][]*item{}
	seen := map[string]int{}
	for _, el := range splitTop(items[start:end]) {
		n := len(el)
		if n < 2 || !isName(el[n-1]) {
			continue
		}
		expr := el[:n-1]
		if el[n-2].is("AS") {
			expr = el[:n-2]
		} else if !endsOperand(el[n-2]) || el[n-2].isPunct(".") {
			continue
		}
		name := strings.ToLower(nameValue(el[n-1]))
		if seen[name]++; len(expr) > 0 && aggregateOrWindow(expr) && !hasWord(expr, "OVER") {
			agg[name] = expr
		}
	}
	for name, n := range seen {
		if n > 1 {
			delete(agg, name) // ambiguous
		}
	}
	if len(agg) == 0 {
		return
	}
	to := h + 1
	for to < len(items) && !endsClause(items[to]) {
		to++
	}
	var walk func(seq []*item)
	walk = func(seq []*item) {
		for _, it := range seq {
			switch {
			case isSubquery(it):
				aliasesIntoSubquery(it, agg)
			case it.group:
				walk(it.kids)
			}
		}
	}
	walk(items[h+1 : to])
}

// aliasesIntoSubquery replaces the bare names of g, a (SELECT …) whose
// sources are only UNNEST(…) [AS] alias, that are aggregate aliases of the
// enclosing query by their expressions in brackets.
func aliasesIntoSubquery(g *item, agg map[string][]*item) {
	kids := g.kids
	if !kids[0].is("SELECT") {
		return
	}
	local := map[string]bool{}
	if f := indexWord(kids, "FROM"); f >= 0 {
		k := f + 1
		for {
			if !at(kids, k).is("UNNEST") || !at(kids, k+1).isGroup("(") {
				return
			}
			k = unnestAliases(kids, k+2, local)
			if !at(kids, k).isPunct(",") {
				break
			}
			k++
		}
		if next := at(kids, k); next != nil && !next.is("WHERE") && !next.is("LIMIT") && !next.isPunct(";") {
			return
		}
	}
	bareNames(kids, func(seq []*item, i int) bool {
		it := seq[i]
		if it.tok.Kind != Ident || at(seq, i-1).is("AS") {
			return false
		}
		name := strings.ToLower(it.tok.Text)
		def, ok := agg[name]
		if !ok || local[name] {
			return false
		}
		expr := make([]*item, len(def))
		for k, x := range def {
			expr[k] = cloneItem(x)
		}
		seq[i] = &item{group: true, tok: Token{Kind: Punct, Text: "(", Pos: it.tok.Pos}, close: Token{Kind: Punct, Text: ")"},
			kids: expr, sp: it.sp, nl: it.nl}
		return false
	})
}

// unnestAliases reads the [AS] alias [WITH OFFSET [AS] alias] after an
// UNNEST(…) source ending before kids[k], recording the names in local; it
// returns the index after them.
func unnestAliases(kids []*item, k int, local map[string]bool) int {
	alias := func() {
		if at(kids, k).is("AS") {
			k++
		}
		if a := at(kids, k); isName(a) {
			local[strings.ToLower(nameValue(a))] = true
			k++
		}
	}
	alias()
	if at(kids, k).is("WITH") && at(kids, k+1).is("OFFSET") {
		k += 2
		alias()
	}
	return k
}

// nameValue is the name an identifier item spells, backticks removed.
func nameValue(it *item) string {
	if v, err := it.tok.Value(); err == nil {
		return v
	}
	return it.tok.Text
}
