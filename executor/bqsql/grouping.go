package bqsql

import (
	"strconv"
	"strings"
)

// checkGroupingSets refuses, as unsupported, the GROUP BY ROLLUP, CUBE and
// GROUPING SETS lists where DuckDB's answer differs from BigQuery's; the
// others run as written. Two cases differ (GoogleSQL's compliance tests,
// grouping_sets_queries.test):
//
//   - a key repeated in one ROLLUP or CUBE list by ordinal or alias
//     (ROLLUP(a, 1) with a first in the SELECT list): BigQuery keeps each
//     occurrence as its own grouping level, DuckDB merges them, so subtotal
//     rows go missing;
//   - a key that is an expression over another key's column (ROLLUP(a,
//     a+1)): in the grouping set without it, BigQuery computes a+1 from the
//     grouped a, DuckDB gives NULL;
//   - within GROUPING SETS, a key naming a SELECT list item by ordinal or
//     alias: DuckDB merges the sets that then coincide, and gives NULL
//     where BigQuery has the grouped value.
//
// Keys are compared after resolving ordinals and SELECT aliases to their
// expressions, as text. GROUP BY ALL over a SELECT list of constants becomes
// GROUP BY (), as BigQuery groups it.
func (e *emitter) checkGroupingSets(items []*item) {
	for _, it := range items {
		if it.group {
			e.checkGroupingSets(it.kids)
		}
	}
	sel := -1
	for k := 0; k < len(items) && e.err == nil; k++ {
		if items[k].is("SELECT") {
			sel = k
			continue
		}
		if sel < 0 || !items[k].is("GROUP") || !at(items, k+1).is("BY") {
			continue
		}
		to := k + 2
		for to < len(items) && !endsClause(items[to]) {
			to++
		}
		if all := items[k+2]; to == k+3 && all.is("ALL") && constantSelect(items, sel) {
			// GROUP BY ALL with no key is BigQuery's GROUP BY (): one
			// group. DuckDB's, with no aggregate either, groups nothing
			// and returns every row.
			items[k+2] = &item{raw: "()", isRaw: true, sp: all.sp, nl: all.nl, tok: all.tok}
		}
		e.checkGroupingKeys(selectExprs(items, sel), items[k+2:to])
		k = to - 1
	}
}

// selectExprs returns the SELECT list after items[sel] by ordinal (1-based,
// as text) and by lower-case alias, without the aliases.
func selectExprs(items []*item, sel int) map[string][]*item {
	start, end := selectList(items, sel)
	out := map[string][]*item{}
	for k, el := range splitTop(items[start:end]) {
		n := len(el)
		if n >= 3 && el[n-2].is("AS") && isName(el[n-1]) {
			out[strings.ToLower(el[n-1].tok.Text)] = el[:n-2]
			el = el[:n-2]
		}
		out[strconv.Itoa(k+1)] = el
	}
	return out
}

// checkGroupingKeys checks one GROUP BY list.
func (e *emitter) checkGroupingKeys(sel map[string][]*item, list []*item) {
	var all [][]*item // every key, ordinals and aliases resolved
	var first *item
	resolved := map[*item]bool{} // first items of keys named by ordinal or alias
	// collect returns the keys in items; sets: inside ROLLUP, CUBE or
	// GROUPING SETS. Each ROLLUP and CUBE list is checked for repeats
	// (GROUPING SETS may name a key in several sets).
	var collect func(items []*item, sets, inSets bool) [][]*item
	collect = func(items []*item, sets, inSets bool) [][]*item {
		var keys [][]*item
		for i := 0; i < len(items) && e.err == nil; i++ {
			it := items[i]
			switch {
			case (it.is("ROLLUP") || it.is("CUBE")) && at(items, i+1).isGroup("("):
				first = orItem(first, it)
				sub := collect(items[i+1].kids, true, inSets)
				// A key written twice is kept twice by both engines; one
				// named again by ordinal or alias is merged by DuckDB.
				seen := map[string]bool{} // key text -> named by ordinal or alias
				for _, k := range sub {
					text := keyText(k)
					if byName, ok := seen[text]; ok && (byName || resolved[k[0]]) {
						e.unsupported(it, "%s with a key repeated by ordinal or alias is not supported", it.upper())
					}
					seen[text] = seen[text] || resolved[k[0]]
				}
				keys = append(keys, sub...)
				i++
			case it.is("GROUPING") && at(items, i+1).is("SETS") && at(items, i+2).isGroup("("):
				first = orItem(first, it)
				keys = append(keys, collect(items[i+2].kids, true, true)...)
				i += 2
			case sets && it.isGroup("("):
				keys = append(keys, collect(it.kids, true, inSets)...) // a key list (a, b) or the empty set ()
			case sets && !it.isPunct(","):
				j := i
				for j < len(items) && !items[j].isPunct(",") {
					j++
				}
				key := items[i:j]
				if len(key) == 1 && (key[0].tok.Kind == Number || isName(key[0])) {
					if expr, ok := sel[strings.ToLower(key[0].tok.Text)]; ok && len(expr) > 0 {
						if inSets {
							e.unsupported(key[0], "GROUPING SETS naming a SELECT list item by ordinal or alias is not supported")
						}
						key = expr
						resolved[expr[0]] = true
					}
				}
				keys = append(keys, key)
				all = append(all, key)
				i = j - 1
			}
		}
		return keys
	}
	collect(list, false, false)
	if first == nil || e.err != nil {
		return
	}
	columns := map[string]bool{}
	for _, key := range all {
		if c := keyColumn(key); c != "" {
			columns[c] = true
		}
	}
	for _, key := range all {
		if keyColumn(key) != "" {
			continue
		}
		var over string
		bareNames(key, func(seq []*item, i int) bool {
			if n := strings.ToLower(seq[i].tok.Text); columns[n] {
				over = n
				return true
			}
			return false
		})
		if over != "" {
			e.unsupported(key[0], "ROLLUP, CUBE and GROUPING SETS with a key expression over another key's column are not supported")
			return
		}
	}
}

func orItem(a, b *item) *item {
	if a != nil {
		return a
	}
	return b
}

// keyColumn returns the lower-case column name of a key that is a column
// (col or t.col), or "".
func keyColumn(key []*item) string {
	n := len(key)
	switch {
	case n == 1 && isName(key[0]):
		return strings.ToLower(key[0].tok.Text)
	case n == 3 && isName(key[0]) && key[1].isPunct(".") && isName(key[2]):
		return strings.ToLower(key[2].tok.Text)
	}
	return ""
}

// keyText is a key's tokens, upper-cased and space-separated, to compare
// keys.
func keyText(items []*item) string {
	var b strings.Builder
	var walk func([]*item)
	walk = func(items []*item) {
		for _, it := range items {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			if it.group {
				b.WriteString(it.tok.Text)
				walk(it.kids)
				b.WriteString(" " + it.close.Text)
				continue
			}
			b.WriteString(strings.ToUpper(it.tok.Text))
		}
	}
	walk(items)
	return b.String()
}

// selectList returns the bounds of the SELECT list after items[sel] (a
// SELECT): past DISTINCT or ALL, up to the clause that ends it.
func selectList(items []*item, sel int) (start, end int) {
	start = sel + 1
	for at(items, start).is("DISTINCT") || at(items, start).is("ALL") {
		start++
	}
	end = start
	for end < len(items) && !endsSelectList(items, end) {
		end++
	}
	return start, end
}

// constantSelect reports whether the SELECT list after items[sel] names
// no column nor calls anything: literals and operators only.
func constantSelect(items []*item, sel int) bool {
	start, end := selectList(items, sel)
	for _, el := range splitTop(items[start:end]) {
		if len(el) == 0 || !constantItems(el) {
			return false
		}
	}
	return end > start
}

// constantItems reports whether a SELECT list item (with its alias, if
// any) names no column nor calls anything.
func constantItems(items []*item) bool {
	for i, it := range items {
		switch {
		case it.group:
			if isSubquery(it) || !constantItems(it.kids) {
				return false
			}
		case it.is("AS") && i+1 < len(items):
			return i+2 == len(items) && constantItems(items[:i])
		case it.tok.Kind == Ident:
			switch it.upper() {
			case "TRUE", "FALSE", "NULL", "AND", "OR", "NOT":
			default:
				return false
			}
		case it.tok.Kind == QuotedIdent || it.synthetic():
			return false
		case it.isPunct("*") && (i == 0 || items[i-1].isPunct(".")):
			return false // SELECT *, t.*: columns
		}
	}
	return true
}
