package bqsql

import "strings"

// fromValueTables turns `FROM (SELECT AS STRUCT a, b …) AS t` into
// `FROM (SELECT a, b …) AS t`. A value table of STRUCTs in FROM reads the
// same as a table of the STRUCT's fields: t.a is the field, * expands to
// the fields, and t alone is the row as a STRUCT, which DuckDB also gives
// for a table alias used as a value. Elsewhere (scalar and ARRAY
// subqueries) selectAsStruct builds the STRUCT.
func fromValueTables(items []*item) {
	for i, it := range items {
		if !it.group {
			continue
		}
		fromValueTables(it.kids)
		prev := at(items, i-1)
		if !it.isGroup("(") || !(prev.is("FROM") || prev.is("JOIN")) {
			continue
		}
		k := it.kids
		if len(k) == 0 || !k[0].is("SELECT") {
			continue
		}
		as := 1
		for at(k, as).is("DISTINCT") || at(k, as).is("ALL") {
			as++
		}
		if !at(k, as).is("AS") || !at(k, as+1).is("STRUCT") || at(k, as+2).isPunct("<") {
			continue
		}
		it.kids = append(k[:as:as], k[as+2:]...)
	}
}

// structCase reports whether seq[i], a range variable, is the operand or
// a WHEN value of a simple CASE that compares STRUCTs: its operand and
// every WHEN value is a range variable, a tuple (a, b) or a STRUCT(…).
// BigQuery compares the row there, as a STRUCT, which is valid.
func structCase(seq []*item, i int, vars map[string]bool) bool {
	c := i - 1
	if at(seq, c).is("WHEN") {
		for c >= 0 && !seq[c].is("CASE") {
			if seq[c].is("END") {
				return false // a nested CASE: keep it simple
			}
			c--
		}
	}
	if !at(seq, c).is("CASE") {
		return false
	}
	isStruct := func(el []*item) bool {
		switch {
		case len(el) == 1 && el[0].isGroup("(") && len(splitTop(el[0].kids)) > 1:
			return true
		case len(el) == 2 && el[0].is("STRUCT") && el[1].isGroup("("):
			return true
		case len(el) == 1 && el[0].tok.Kind == Ident && !el[0].synthetic() && !el[0].group:
			return vars[lowerName(el[0])]
		}
		return false
	}
	// CASE operand WHEN v THEN r [WHEN v THEN r]… [ELSE r] END
	k := c + 1
	start := k
	for k < len(seq) && !seq[k].is("WHEN") {
		k++
	}
	if !isStruct(seq[start:k]) {
		return false
	}
	for k < len(seq) && seq[k].is("WHEN") {
		start = k + 1
		for k = start; k < len(seq) && !seq[k].is("THEN"); k++ {
		}
		if !isStruct(seq[start:k]) {
			return false
		}
		for k < len(seq) && !seq[k].is("WHEN") && !seq[k].is("ELSE") && !seq[k].is("END") {
			if seq[k].is("CASE") {
				return false
			}
			k++
		}
	}
	return true
}

func lowerName(it *item) string { return strings.ToLower(it.tok.Text) }

// selectTuples makes a SELECT list item that is a tuple, (a, b) [AS] x,
// the STRUCT(a, b) it is in BigQuery, so its fields get BigQuery's
// anonymous names (_field_N): DuckDB's unnamed row cannot be read back
// (the driver refuses empty field names).
func selectTuples(items []*item) []*item {
	for _, it := range items {
		if it.group {
			it.kids = selectTuples(it.kids)
		}
	}
	var tuples map[*item]bool
	for sel := 0; sel < len(items); sel++ {
		if !items[sel].is("SELECT") {
			continue
		}
		start, end := selectList(items, sel)
		for _, el := range splitTop(items[start:end]) {
			if n := len(el); n > 0 && el[0].group && structCtorArgs(el[:1]) != nil &&
				(n == 1 || (n == 2 && isName(el[1])) || (n == 3 && el[1].is("AS"))) {
				if tuples == nil {
					tuples = map[*item]bool{}
				}
				tuples[el[0]] = true
			}
		}
	}
	if tuples == nil {
		return items
	}
	out := make([]*item, 0, len(items)+len(tuples))
	for _, it := range items {
		if tuples[it] {
			out = append(out, &item{tok: Token{Kind: Ident, Text: "STRUCT", Pos: it.tok.Pos}, nl: it.nl, sp: it.sp})
			it.nl, it.sp = false, false
		}
		out = append(out, it)
	}
	return out
}
