package bqsql

import "strings"

// BigQuery orders FLOAT64 values NULL < NaN < -inf < … < +inf (ascending);
// DuckDB puts NaN above +inf. The order decides query results (ORDER BY),
// ranks and buckets (RANK, NTILE, PERCENT_RANK, … OVER (ORDER BY x)) and
// ordered aggregates (ARRAY_AGG(x ORDER BY y)). nanOrder therefore puts
// before every ORDER BY key k an extra key bq_nan_order(k) with k's
// direction and NULLS modifier: false for NaN, true for every other
// non-NULL value, NULL for NULL. Ascending, NaN (false) then comes before
// the other values and after NULLs; descending, after them and before the
// NULLs, as in BigQuery. For a key that is not FLOAT64 the extra key is
// constant (the macro folds on typeof), so the order is unchanged. Rows
// with equal keys still have equal extra keys, so window peers (RANK's
// ties, the default RANGE frame) are the same.
//
// Left as they are:
//   - keys the statement model types as other than FLOAT64: their order
//     needs no extra key. (A bare name DuckDB resolves to an output column
//     cannot be written inside an expression as it is, where DuckDB
//     resolves it among the FROM items' columns and may find it ambiguous:
//     a FLOAT64 one that names a v.* column, which BigQuery resolves to
//     that output column, is written v.name in the extra key, see
//     model.noteStarKey; such a name inside a key that is an expression
//     is written v.name wherever it is emitted, model.starNames);
//   - ordinals (ORDER BY 2) and literals: the key is not an expression;
//   - a window with a RANGE frame: DuckDB requires a single key there;
//   - a DISTINCT aggregate (ARRAY_AGG(DISTINCT x ORDER BY x)): DuckDB
//     requires its ORDER BY keys to be arguments;
//   - the ORDER BY of a query with GROUP BY ALL: DuckDB groups by the
//     SELECT list only and would not bind the extra key's column;
//   - the ORDER BY of a query that calls RAND or GENERATE_UUID: DuckDB
//     refuses to repeat a volatile select item the key names;
//   - keys holding a subquery, which would run twice (and nested ones
//     would double the translation at every level).

// nanOrder rewrites every ORDER BY in items and the groups within them.
func nanOrder(items []*item, m *model) []*item {
	ranged := map[string]bool{}
	rangedWindows(items, ranged)
	return nanOrderIn(items, ranged, m)
}

// rangedWindows records the named windows that some window specification
// extends with a RANGE frame (OVER (w RANGE …), WINDOW v AS (w RANGE …)):
// their ORDER BY must stay a single key.
func rangedWindows(items []*item, ranged map[string]bool) {
	for _, it := range items {
		if !it.group {
			continue
		}
		if isName(at(it.kids, 0)) && indexWord(it.kids, "RANGE") >= 0 {
			ranged[strings.ToLower(it.kids[0].tok.Text)] = true
		}
		rangedWindows(it.kids, ranged)
	}
}

func nanOrderIn(items []*item, ranged map[string]bool, m *model) []*item {
	for i, it := range items {
		if it.group {
			if w := at(items, i-2); at(items, i-1).is("AS") && isName(w) && ranged[strings.ToLower(w.tok.Text)] {
				// WINDOW w AS (ORDER BY x), extended with a RANGE frame.
				continue
			}
			it.kids = nanOrderIn(it.kids, ranged, m)
		}
	}
	if at(items, 0).is("DISTINCT") {
		// The arguments of a DISTINCT aggregate.
		return items
	}
	for k := 0; k+1 < len(items); k++ {
		if !items[k].is("ORDER") || !items[k+1].is("BY") {
			continue
		}
		end := k + 2
		for end < len(items) && !endsOrderBy(items[end]) {
			end++
		}
		if at(items, end).is("RANGE") || groupByAll(items[:k]) || callsVolatile(items[:k]) {
			k = end
			continue
		}
		var keys []*item
		for n, el := range splitTop(items[k+2 : end]) {
			if n > 0 {
				keys = append(keys, &item{tok: Token{Kind: Punct, Text: ",", Pos: el[0].pos()}})
			}
			keys = append(keys, nanKey(el, m)...)
			keys = append(keys, el...)
		}
		out := make([]*item, 0, len(items)+len(keys))
		out = append(out, items[:k+2]...)
		out = append(out, keys...)
		out = append(out, items[end:]...)
		k += 2 + len(keys) - 1
		items = out
	}
	return items
}

// nanKey returns "bq_nan_order(key) modifiers ," for one ORDER BY element,
// or nothing when the element is left alone (see nanOrder).
func nanKey(el []*item, m *model) []*item {
	n := len(el)
	for n > 1 && (isOrderModifier(el[n-1]) || el[n-1].is("FIRST") || el[n-1].is("LAST")) {
		n--
	}
	key, mods := el[:n], el[n:]
	if t, ok := m.typeOfItems(key); ok && t != "FLOAT64" {
		return nil
	}
	if len(key) == 0 || (len(key) == 1 && !key[0].group && key[0].tok.Kind != Ident && key[0].tok.Kind != QuotedIdent) ||
		key[0].is("NULL") || holdsSubquery(key) || indexWord(key, "COLLATE") >= 0 {
		return nil
	}
	pos := key[0].pos()
	arg := cloneItems(key)
	arg[0].sp, arg[0].nl = false, false
	if v, ok := m.orderStarAt(pos); ok && len(key) == 1 && key[0].path == nil &&
		(key[0].tok.Kind == Ident || key[0].tok.Kind == QuotedIdent) {
		// A bare name of a v.* output column: inside bq_nan_order DuckDB
		// would resolve it among the FROM items, so it is qualified.
		name, err := key[0].tok.Value()
		if err == nil {
			arg = []*item{{isRaw: true, raw: quoteIdent(v) + "." + quoteIdent(name), tok: Token{Pos: pos}}}
		}
	}
	out := []*item{
		{isRaw: true, raw: "bq_nan_order", tok: Token{Pos: pos}, sp: el[0].sp, nl: el[0].nl},
		{group: true, tok: Token{Kind: Punct, Text: "(", Pos: pos}, close: Token{Kind: Punct, Text: ")"}, kids: arg},
	}
	for _, m := range mods {
		c := *m
		out = append(out, &c)
	}
	out = append(out, &item{tok: Token{Kind: Punct, Text: ",", Pos: pos}})
	// The original key follows with a space.
	el[0].sp = true
	return out
}

// endsOrderBy reports whether it ends an ORDER BY key list: a frame, LIMIT,
// or a clause or set operation after it.
func endsOrderBy(it *item) bool {
	switch it.upper() {
	case "ROWS", "RANGE", "GROUPS":
		return true
	}
	return endsClause(it)
}

// holdsSubquery reports whether items contain a query in brackets.
func holdsSubquery(items []*item) bool {
	for _, it := range items {
		if it.group && (isSubquery(it) || holdsSubquery(it.kids)) {
			return true
		}
	}
	return false
}

// cloneItems copies an item tree that has not been rewritten yet, so that
// the copy can be translated on its own (rules replace items in place).
func cloneItems(items []*item) []*item {
	out := make([]*item, len(items))
	for i, it := range items {
		c := *it
		if it.group {
			c.kids = cloneItems(it.kids)
		}
		out[i] = &c
	}
	return out
}

// groupByAll reports whether items hold GROUP BY ALL at their top level.
func groupByAll(items []*item) bool {
	for k := 0; k+2 < len(items); k++ {
		if items[k].is("GROUP") && items[k+1].is("BY") && items[k+2].is("ALL") {
			return true
		}
	}
	return false
}

// minNaN renders MIN. BigQuery's MIN of FLOAT64 is NaN when any input is
// NaN; DuckDB orders NaN above +inf, so its min skips NaN (its max, NaN
// then, agrees with BigQuery's MAX). bq_min_nan takes DuckDB's max over the
// same rows when that is NaN. An argument known not to be FLOAT64 keeps the
// plain min, and so does MIN inside a PIVOT, where DuckDB takes one
// aggregate call only (NaN is then skipped: a known difference the README
// lists).
func minNaN(c *call) string {
	plain := fnSpec{min: 1, max: 1, agg: true, duck: "min"}
	if t := baseType(c.e.exprType(c.args[0])); (t != "" && t != "FLOAT64") || c.e.inPivotAgg {
		return c.e.plainCall(c, plain)
	}
	over, x := c.window(), c.distinctArg(0)
	return "bq_min_nan(min(" + x + ")" + over + ", max(" + x + ")" + over + ")"
}

// callsVolatile reports whether items call RAND or GENERATE_UUID.
func callsVolatile(items []*item) bool {
	for i, it := range items {
		if it.group {
			if callsVolatile(it.kids) {
				return true
			}
			continue
		}
		if (it.is("RAND") || it.is("GENERATE_UUID")) && at(items, i+1).isGroup("(") {
			return true
		}
	}
	return false
}
