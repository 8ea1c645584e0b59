package bqsql

import (
	"strconv"
	"strings"
)

// groupByAllKeys spells out GROUP BY ALL in a block that also has QUALIFY,
// which DuckDB refuses to combine. BigQuery's GROUP BY ALL groups by every
// SELECT list item that has no aggregate, no window function and some
// column (constants are not keys); those items become ordinals, or () if
// there are none. A list with a star is left to DuckDB (whose refusal is
// reported unsupported), since its columns are not known here.
func groupByAllKeys(items []*item) {
	for _, it := range items {
		if it.group {
			groupByAllKeys(it.kids)
		}
	}
	sel := indexWord(items, "SELECT")
	if sel < 0 || indexWord(items, "QUALIFY") < 0 {
		return
	}
	for k := sel + 1; k+2 < len(items); k++ {
		if !items[k].is("GROUP") || !items[k+1].is("BY") || !items[k+2].is("ALL") {
			continue
		}
		if next := at(items, k+3); next != nil && !endsClause(next) {
			return
		}
		start, end := selectList(items, sel)
		var keys []string
		for n, el := range splitTop(items[start:end]) {
			if len(el) == 0 || hasStar(el) {
				return
			}
			if aggregateOrWindow(el) || constantItems(el) {
				continue
			}
			keys = append(keys, strconv.Itoa(n+1))
		}
		text := "()"
		if len(keys) > 0 {
			text = strings.Join(keys, ", ")
		}
		all := items[k+2]
		items[k+2] = &item{raw: text, isRaw: true, sp: all.sp, nl: all.nl, tok: all.tok}
		return
	}
}

// hasStar reports whether a SELECT list item is *, t.* or * EXCEPT ….
func hasStar(el []*item) bool {
	for _, it := range el {
		if it.isPunct("*") {
			return true
		}
	}
	return false
}

// aggregateOrWindow reports whether items call an aggregate function or have
// an OVER clause, outside subqueries.
func aggregateOrWindow(items []*item) bool {
	for i, it := range items {
		switch {
		case it.group:
			if !isSubquery(it) && aggregateOrWindow(it.kids) {
				return true
			}
		case it.is("OVER"):
			return true
		case at(items, i+1).isGroup("(") && funcs[it.upper()].agg:
			return true
		}
	}
	return false
}
