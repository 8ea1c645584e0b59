package bqsql

import "strings"

// outerAggregates keeps an aggregate in a subquery the subquery's when its
// arguments name only columns of an outer query. BigQuery aggregates over
// the rows of the query the call is written in (SELECT ARRAY_AGG(w) FROM
// (SELECT 1) is [w], once per outer row); DuckDB, following the SQL
// standard, moves such a call out to the outer query, where it aggregates
// the outer rows or fails ("WHERE clause cannot contain aggregates"). The
// subquery gets one more FROM source, (SELECT w) AS bq_outer: a single
// row that shows the outer values under their own names, so the call names
// a column of its own query and stays there, with the same values.
//
// Only where the subquery's own columns are all known, so that a name is
// certainly an outer one: its sources are bracketed SELECTs without FROM
// and UNNESTs of literal arrays of scalars, joined by commas, or it has no
// FROM. An aggregate argument with a qualified name, a date part or a
// weekday (names that need not be columns) is left as it was.
func outerAggregates(items []*item) []*item {
	for _, it := range items {
		if !it.group {
			continue
		}
		it.kids = outerAggregates(it.kids)
		if isSubquery(it) && it.kids[0].is("SELECT") {
			it.kids = outerAggregateSource(it.kids)
		}
	}
	return items
}

// outerAggregateSource adds the bq_outer source to the SELECT block kids
// where its aggregates name outer columns.
func outerAggregateSource(kids []*item) []*item {
	for _, it := range kids {
		if it.is("UNION") || it.is("INTERSECT") || it.is("EXCEPT") || it.is("WITH") {
			return kids
		}
	}
	_, end := selectList(kids, 0)
	local := map[string]bool{}
	insert, from := end, at(kids, end).is("FROM")
	if from {
		k, ok := knownSources(kids, end+1, local)
		if !ok {
			return kids
		}
		insert = k
	}
	var outer []*item
	seen := map[string]bool{}
	for i, it := range kids {
		if !at(kids, i+1).isGroup("(") || at(kids, i-1).isPunct(".") || at(kids, i+2).is("OVER") {
			continue
		}
		if sig, ok := signatures[it.upper()]; !ok || sig.kind != aggregateFn {
			continue
		}
		ok := true
		bareNames(kids[i+1].kids, func(seq []*item, j int) bool {
			n := seq[j]
			up := n.upper()
			if _, wd := weekdays[up]; wd || datePartNames[up] || n.tok.Kind != Ident {
				ok = false
				return true
			}
			if at(seq, j-1).is("AS") {
				return false
			}
			name := strings.ToLower(n.tok.Text)
			if !local[name] && !seen[name] {
				seen[name] = true
				outer = append(outer, n)
			}
			return false
		})
		if !ok {
			return kids
		}
		// A qualified name (t.w) may be an outer column too; it cannot be
		// shown under its qualifier. Nor can names in a subquery.
		if hasPunct(kids[i+1].kids, ".") || hasWord(kids[i+1].kids, "SELECT") {
			return kids
		}
	}
	if len(outer) == 0 {
		return kids
	}
	word := func(s string, pos int) *item { return &item{tok: Token{Kind: Ident, Text: s, Pos: pos}, sp: true} }
	pos := kids[0].tok.Pos
	sel := []*item{word("SELECT", pos)}
	for k, n := range outer {
		if k > 0 {
			sel = append(sel, &item{tok: Token{Kind: Punct, Text: ",", Pos: pos}})
		}
		// Unaliased: DuckDB names the column after the name, and an
		// alias would hide the outer column inside the SELECT itself.
		sel = append(sel, word(n.tok.Text, n.tok.Pos))
	}
	src := []*item{
		{tok: Token{Kind: Punct, Text: "(", Pos: pos}, group: true, kids: sel, close: Token{Kind: Punct, Text: ")", Pos: pos}, sp: true},
		word("AS", pos), word("bq_outer", pos),
	}
	if from {
		src = append([]*item{{tok: Token{Kind: Punct, Text: ",", Pos: pos}}}, src...)
	} else {
		src = append([]*item{word("FROM", pos)}, src...)
	}
	out := append([]*item(nil), kids[:insert]...)
	out = append(out, src...)
	return append(out, kids[insert:]...)
}

// knownSources reads a FROM list from kids[k] whose columns are all known,
// recording the names it defines in local; it returns where the list ends,
// or false for any other source.
func knownSources(kids []*item, k int, local map[string]bool) (int, bool) {
	for {
		switch src := at(kids, k); {
		case src.is("UNNEST") && at(kids, k+1).isGroup("(") && scalarArrayLiteral(kids[k+1].kids):
			k = unnestAliases(kids, k+2, local)
		case isSubquery(src) && src.kids[0].is("SELECT") && indexWord(src.kids, "FROM") < 0 && constantSelect(src.kids, 0):
			start, end := selectList(src.kids, 0)
			for _, el := range splitTop(src.kids[start:end]) {
				if n := len(el); n >= 2 && isName(el[n-1]) {
					local[strings.ToLower(nameValue(el[n-1]))] = true
				}
			}
			k++
			if at(kids, k).is("AS") {
				k++
			}
			if a := at(kids, k); isName(a) {
				local[strings.ToLower(nameValue(a))] = true
				k++
			}
		default:
			return k, false
		}
		if !at(kids, k).isPunct(",") {
			break
		}
		k++
	}
	switch next := at(kids, k); {
	case next == nil, next.is("WHERE"), next.is("GROUP"), next.is("HAVING"), next.is("ORDER"), next.is("LIMIT"):
		return k, true
	}
	return k, false
}

// scalarArrayLiteral reports whether items are [a, b, …] with literal
// elements only (UNNEST of it adds no columns but its alias).
func scalarArrayLiteral(items []*item) bool {
	if len(items) != 1 || !items[0].isGroup("[") {
		return false
	}
	for _, el := range splitTop(items[0].kids) {
		if len(el) == 2 && el[0].isPunct("-") {
			el = el[1:]
		}
		if !literalOnly(el) {
			return false
		}
	}
	return true
}
